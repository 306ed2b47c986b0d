import Foundation
import MCloudCore
import MCloudEngine
import MCloudProvider
import MCloudState

/// The part of apply and destroy after the plan: the lock, the walk, the progress and the summary.
enum ApplyRunner {
    /// Runs `body` holding the state lock; fails at once, naming the holder, when someone else holds it.
    static func withLock(
        _ backend: any StateBackend, operation: String, _ context: CommandContext, _ body: (LockInfo) async -> ExitCode
    ) async -> ExitCode {
        let lock: LockInfo
        do throws(StateError) {
            lock = try backend.lock(operation: operation)
        } catch {
            context.stderr.write("error: \(error)\n")
            return .failure
        }
        let code = await body(lock)
        do throws(StateError) {
            try backend.unlock(id: lock.id)
        } catch {
            context.stderr.write("error: releasing the state lock: \(error)\n")
            return .failure
        }
        return code
    }

    /// Carries out `plan` on `state` and prints the outcome. The caller holds the lock.
    static func execute(
        _ plan: DeploymentPlan, clouds: [String: Cloud], state: State?, backend: any StateBackend, lock: LockInfo,
        parallelism: Int, _ context: CommandContext
    ) async -> ExitCode {
        guard plan.hasChanges else {
            context.stdout.write("\nNo changes to apply.\n")
            return .success
        }
        let providers: ProviderSet
        do throws(EngineError) {
            let needs = plan.changes.filter { $0.action != .noOp }.map { (address: $0.address, provider: $0.provider, cloud: $0.cloud) }
            providers = try ProviderSet(needs: needs, clouds: clouds, catalog: ProviderRegistry(environment: context.environment))
        } catch {
            context.stderr.write("error: \(error.message)\n")
            return .failure
        }
        let stopSignal = StopSignal()
        let interrupts = context.handlesSignals
            ? InterruptHandler(stopSignal: stopSignal, context: context) { try? backend.unlock(id: lock.id) }
            : nil
        defer { interrupts?.cancel() }
        let printer = ProgressPrinter(context: context)
        let tick = Double(context.environment["MCLOUD_PROGRESS_INTERVAL"] ?? "") ?? 10
        let applier = Applier(parallelism: parallelism, tick: tick, stopSignal: stopSignal) { printer.print($0) }
        let outcome: Applier.Outcome
        do throws(EngineError) {
            var initial = state ?? State()
            initial.application = plan.application
            outcome = try await applier.apply(plan, providers: providers, recorder: StateRecorder(state: initial, backend: backend))
        } catch {
            context.stderr.write("error: \(error.message)\n")
            return .failure
        }
        let done = outcome.completed
        let counts = "\(done[.create] ?? 0) added, \(done[.update] ?? 0) changed, \(done[.replace] ?? 0) replaced, \(done[.delete] ?? 0) destroyed"
        if outcome.succeeded {
            context.stdout.write("\n\(plan.operation == .destroy ? "Destroy" : "Apply") complete! Resources: \(counts).\n")
            return .success
        }
        var message = "\n\(plan.operation == .destroy ? "Destroy" : "Apply") stopped: \(counts)"
        if outcome.notStarted > 0 { message += ", \(outcome.notStarted) not started" }
        message += ". The state records everything completed; run the command again to continue.\n"
        for failure in outcome.failures { message += "  \(failure.address): \(failure.message)\n" }
        context.stderr.write(message)
        return .failure
    }

    /// Asks for "yes" unless `autoApprove`; false when the answer is anything else.
    static func confirmed(_ question: String, autoApprove: Bool, _ context: CommandContext) -> Bool {
        guard !autoApprove else { return true }
        context.stdout.write("\n\(question)\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ")
        guard let answer = context.readLine() else {
            context.stderr.write("\nerror: no answer on standard input; pass --auto-approve, or apply a saved plan\n")
            return false
        }
        guard answer.trimmingCharacters(in: .whitespaces) == "yes" else {
            context.stderr.write("\nCancelled: nothing was changed.\n")
            return false
        }
        return true
    }
}
