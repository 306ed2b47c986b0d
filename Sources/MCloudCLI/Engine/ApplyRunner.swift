import Foundation
import MCloudCore
import MCloudEngine
import MCloudProvider
import MCloudState
import MCloudViews

/// The part of apply and destroy after the plan: the lock, the walk, the progress and the summary.
enum ApplyRunner {
    /// Runs `body` holding the state lock; fails at once, naming the holder, when someone else holds it. Ctrl-C and
    /// SIGTERM meanwhile release the lock before mcloud exits (`InterruptHandler`, given to `body` in the real process).
    static func withLock(
        _ backend: any StateBackend, operation: String, _ context: CommandContext, _ body: (LockInfo, InterruptHandler?) async -> ExitCode
    ) async -> ExitCode {
        let lock: LockInfo
        do throws(StateError) {
            lock = try backend.lock(operation: operation)
        } catch {
            context.stderr.write("error: \(error)\n")
            return .failure
        }
        let interrupts = context.handlesSignals ? InterruptHandler(operation: operation, context: context) { try? backend.unlock(id: lock.id) } : nil
        let code = await body(lock, interrupts)
        interrupts?.cancel()
        do throws(StateError) {
            try backend.unlock(id: lock.id)
        } catch {
            context.stderr.write("error: releasing the state lock: \(error)\n")
            return .failure
        }
        return code
    }

    /// Carries out the document's plan on `state` and prints the outcome; once it is complete, records in the state
    /// where the application now runs and what that costs, even when no resource changed (prices may have). The
    /// caller holds the lock.
    static func execute(
        _ document: PlanDocument, _ plan: DeploymentPlan, clouds: [String: Cloud], state: State?, backend: any StateBackend, interrupts: InterruptHandler?,
        parallelism: Int, _ context: CommandContext
    ) async -> ExitCode {
        var initial = state ?? State()
        initial.application = plan.application
        let recorder = StateRecorder(state: initial, backend: backend)
        // A failover's lost clouds first: from then on every plan leaves them out, even if this apply stops halfway.
        // And the restore sources it retains, before anything could delete them.
        if !plan.newlyLost.isEmpty || !plan.newlyRetained.isEmpty {
            do throws(StateError) {
                try await recorder.record(lost: plan.lost)
                try await recorder.record(retained: plan.newlyRetained)
            } catch {
                context.stderr.write("error: recording the lost clouds and retained resources: \(error); nothing was changed\n")
                return .failure
            }
        }
        guard plan.changes.contains(where: { $0.action != .noOp }) else {
            if !plan.newlyLost.isEmpty || !plan.newlyRetained.isEmpty || !plan.recovered.isEmpty {
                guard await record(document, plan, recorder: recorder, context: context) else { return .failure }
                context.stdout.write("\nNo resource changes; the state records the lost clouds and what they keep.\n")
                return .success
            }
            guard await recordUnchanged(document, plan, state: state, backend: backend, context) else { return .failure }
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
        interrupts?.walking(stopSignal)
        let printer = ProgressPrinter(context: context)
        let tick = Double(context.environment["MCLOUD_PROGRESS_INTERVAL"] ?? "") ?? 10
        let applier = Applier(parallelism: parallelism, tick: tick, stopSignal: stopSignal) { printer.print($0) }
        let outcome: Applier.Outcome
        do throws(EngineError) {
            outcome = try await applier.apply(plan, providers: providers, recorder: recorder)
        } catch {
            context.stderr.write("error: \(error.message)\n")
            return .failure
        }
        let done = outcome.completed
        let counts = "\(done[.create] ?? 0) added, \(done[.update] ?? 0) changed, \(done[.replace] ?? 0) replaced, \(done[.delete] ?? 0) destroyed"
        if outcome.succeeded {
            guard await record(document, plan, recorder: recorder, context: context) else { return .failure }
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

    /// A plan without changes still makes its placement the recorded one: the cost can change with the prices alone.
    /// Nothing is written without a state to write to.
    static func recordUnchanged(_ document: PlanDocument, _ plan: DeploymentPlan, state: State?, backend: any StateBackend, _ context: CommandContext) async -> Bool {
        guard let state else { return true }
        return await record(document, plan, recorder: StateRecorder(state: state, backend: backend), context: context)
    }

    /// Writes the placement a complete apply made (none after a destroy); a targeted plan made only part of it, so
    /// the record stays as it was. False after printing why the state could not be written.
    private static func record(_ document: PlanDocument, _ plan: DeploymentPlan, recorder: StateRecorder, context: CommandContext) async -> Bool {
        do throws(StateError) {
            try await recorder.record(recovered: plan.recovered)
        } catch {
            context.stderr.write("error: the changes are done, but the state could not record \(plan.recovered.joined(separator: ", ")) as recovered: \(error)\n")
            return false
        }
        guard !plan.targeted else { return true }
        let placement = plan.operation == .destroy ? nil : document.placement?.applied
        do throws(StateError) {
            try await recorder.record(placement: placement)
            return true
        } catch {
            context.stderr.write("error: the changes are done, but the state could not record the placement: \(error)\n")
            return false
        }
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
