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
        _ backend: any StateBackend, operation: String, _ context: CommandContext,
        _ body: (LockInfo, InterruptHandler?) async throws(CommandFailure) -> ExitCode
    ) async throws(CommandFailure) -> ExitCode {
        let lock: LockInfo
        do throws(StateError) {
            lock = try backend.lock(operation: operation)
        } catch {
            throw CommandFailure("\(error)")
        }
        let interrupts = context.handlesSignals ? InterruptHandler(operation: operation, context: context) { try? backend.unlock(id: lock.id) } : nil
        let outcome: Result<ExitCode, CommandFailure>
        do throws(CommandFailure) {
            outcome = .success(try await body(lock, interrupts))
        } catch {
            outcome = .failure(error)
        }
        interrupts?.cancel()
        do throws(StateError) {
            try backend.unlock(id: lock.id)
        } catch {
            // The command's own failure comes first; the lock's is said after it.
            throw CommandFailure("releasing the state lock: \(error)", details: outcome.failureText)
        }
        return try outcome.get()
    }

    /// What apply and destroy do with a fresh plan: show it, hold it to the policies, record an unchanged one, ask
    /// `question` unless approved, and carry it out. `consequence` says what a failed mandatory rule means.
    static func carryOut(
        _ made: PlanRunner.Made, question: String, consequence: String, state: State?, backend: any StateBackend, interrupts: InterruptHandler?,
        approval: ApprovalOptions, _ context: CommandContext
    ) async throws(CommandFailure) -> ExitCode {
        context.stdout.write(PlanView.render(made.document, explain: false, color: context.usesColor))
        try PlanRunner.enforce(made.document.policy, consequence: consequence, context)
        guard made.deployment.hasChanges else {
            try await recordUnchanged(made.document, made.deployment, state: state, backend: backend)
            return .success
        }
        try confirm(question, autoApprove: approval.autoApprove, context)
        return try await execute(
            made.document, made.deployment, clouds: made.clouds, state: state, backend: backend, interrupts: interrupts, parallelism: approval.parallelism, context
        )
    }

    /// Carries out the document's plan on `state` and prints the outcome; once it is complete, records in the state
    /// where the application now runs and what that costs, even when no resource changed (prices may have). The
    /// caller holds the lock.
    static func execute(
        _ document: PlanDocument, _ plan: DeploymentPlan, clouds: [String: Cloud], state: State?, backend: any StateBackend, interrupts: InterruptHandler?,
        parallelism: Int, _ context: CommandContext
    ) async throws(CommandFailure) -> ExitCode {
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
                throw CommandFailure("recording the lost clouds and retained resources: \(error); nothing was changed")
            }
        }
        guard plan.changes.contains(where: { $0.action != .noOp }) else {
            if !plan.newlyLost.isEmpty || !plan.newlyRetained.isEmpty || !plan.recovered.isEmpty {
                try await record(document, plan, recorder: recorder)
                context.stdout.write("\nNo resource changes; the state records the lost clouds and what they keep.\n")
                return .success
            }
            try await recordUnchanged(document, plan, state: state, backend: backend)
            context.stdout.write("\nNo changes to apply.\n")
            return .success
        }
        let providers: ProviderSet
        do throws(EngineError) {
            let needs = plan.changes.filter { $0.action != .noOp }.map { (address: $0.address, provider: $0.provider, cloud: $0.cloud) }
            providers = try ProviderSet(needs: needs, clouds: clouds, catalog: context.providerCatalog)
        } catch {
            throw CommandFailure(error.message)
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
            throw CommandFailure(error.message)
        }
        let done = outcome.completed
        let counts = "\(done[.create] ?? 0) added, \(done[.update] ?? 0) changed, \(done[.replace] ?? 0) replaced, \(done[.delete] ?? 0) destroyed"
        if outcome.succeeded {
            try await record(document, plan, recorder: recorder)
            context.stdout.write("\n\(plan.operation == .destroy ? "Destroy" : "Apply") complete! Resources: \(counts).\n")
            return .success
        }
        var message = "\(plan.operation == .destroy ? "Destroy" : "Apply") stopped: \(counts)"
        if outcome.notStarted > 0 { message += ", \(outcome.notStarted) not started" }
        message += ". The state records everything completed; run the command again to continue."
        throw .lines(["", message] + outcome.failures.map { "  \($0.address): \($0.message)" })
    }

    /// A plan without changes still makes its placement the recorded one: the cost can change with the prices alone.
    /// Nothing is written without a state to write to.
    static func recordUnchanged(_ document: PlanDocument, _ plan: DeploymentPlan, state: State?, backend: any StateBackend) async throws(CommandFailure) {
        guard let state else { return }
        try await record(document, plan, recorder: StateRecorder(state: state, backend: backend))
    }

    /// Writes the placement a complete apply made (none after a destroy); a targeted plan made only part of it, so
    /// the record stays as it was.
    private static func record(_ document: PlanDocument, _ plan: DeploymentPlan, recorder: StateRecorder) async throws(CommandFailure) {
        do throws(StateError) {
            try await recorder.record(recovered: plan.recovered)
        } catch {
            throw CommandFailure("the changes are done, but the state could not record \(plan.recovered.joined(separator: ", ")) as recovered: \(error)")
        }
        guard !plan.targeted else { return }
        let placement = plan.operation == .destroy ? nil : document.placement?.applied
        do throws(StateError) {
            try await recorder.record(placement: placement)
        } catch {
            throw CommandFailure("the changes are done, but the state could not record the placement: \(error)")
        }
    }

    /// Asks for "yes" unless `autoApprove`; throws when the answer is anything else.
    static func confirm(_ question: String, autoApprove: Bool, _ context: CommandContext) throws(CommandFailure) {
        guard !autoApprove else { return }
        context.stdout.write("\n\(question)\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ")
        guard let answer = context.readLine() else {
            throw .lines(["", "error: no answer on standard input; pass --auto-approve, or apply a saved plan"])
        }
        guard answer.trimmingCharacters(in: .whitespaces) == "yes" else {
            throw .lines(["", "Cancelled: nothing was changed."])
        }
    }
}
