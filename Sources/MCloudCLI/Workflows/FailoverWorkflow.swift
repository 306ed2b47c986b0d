import MCloudCore
import MCloudEngine
import MCloudProvider
import MCloudViews

/// A failover's plan: the recorded state and the manifests placed without the lost clouds, each database whose
/// primary was lost recreated with its newest backup as the recovery point, refused before anything changes when a
/// cell cannot be restored. Ages come from the context's clock.
struct FailoverWorkflow {
    var manifests: ManifestOptions
    var clouds: [String]
    var context: CommandContext

    /// The plan and the report to print before it.
    struct Prepared {
        var made: PlanRunner.Made
        var report: FailoverReport
    }

    private func prepare(_ recorded: State?) async throws(CommandFailure) -> Prepared {
        guard let recorded, !recorded.resources.isEmpty else {
            throw CommandFailure("the state records nothing: there is nothing to fail over (apply first, or pass the state with --state)")
        }
        let model = try PlacementLoader.model(manifests, context)
        let names = model.clouds.map(\.name)
        for cloud in clouds where !names.contains(cloud) {
            throw CommandFailure("no cloud named '\(cloud)'\(Suggestion.didYouMean(cloud, in: names).replacingQuotes)")
        }
        let lost = Set(clouds).union(recorded.lost)
        var inputs = try DeploymentInputs.load(manifests, lost: lost, context)
        let restores: [(point: RecoveryPoints.Point, backup: BackupObject)]
        let needs: [RecoveryPoints.Need]
        do throws(EngineError) {
            needs = try RecoveryPoints.needs(desired: inputs.desired, state: recorded, lost: lost)
            do throws(ProviderError) {
                restores = try await RecoveryPointReader(clouds: inputs.clouds, registry: context.providerCatalog).points(needs)
            } catch {
                throw EngineError("reading the DR legs: \(error.message)")
            }
        } catch {
            throw .lines(["error: \(error.message)", "Nothing was changed."])
        }
        inputs.desired = RecoveryPoints.applying(restores.map(\.point), to: inputs.desired)
        let made = try await PlanRunner.apply(
            inputs, state: recorded, refresh: true, targets: [], losing: lost, retaining: Set(needs.compactMap(\.leg?.address)), context
        )
        let losses = RecoveryPoints.dataLosses(made.deployment)
        guard losses.isEmpty else {
            throw .lines(losses.map { "error: \($0)" } + ["Nothing was changed: move the DR leg with a plain 'mcloud apply' once the primary's data is safe elsewhere."])
        }
        let now = context.clock.nowSeconds
        let report = FailoverReport(
            lost: lost.sorted(),
            restores: restores.map { restore in
                FailoverReport.Restore(
                    server: restore.point.server, recoveryPoint: restore.point.recoveryPoint, backupSize: restore.backup.size, ageSeconds: now - restore.backup.time
                )
            },
            startsEmpty: needs.filter { $0.leg == nil }.map(\.cell), plan: made.document
        )
        return Prepared(made: made, report: report)
    }

    /// Plans the failover, prints what it restores and the plan on `progress`, then saves the plan to `out` or, once
    /// approved, carries it out; with `forgetLost`, the lost clouds' resources then leave the state.
    func run(
        recorded: State?, backend: any StateBackend, interrupts: InterruptHandler?, approval: ApprovalOptions, out: String?, forgetLost: Bool,
        progress: CommandContext
    ) async throws(CommandFailure) -> FailoverReport {
        let prepared = try await prepare(recorded)
        let made = prepared.made
        var report = prepared.report
        progress.stdout.write(FailoverView.header(report))
        progress.stdout.write(PlanView.render(made.document, explain: false, color: context.usesColor))
        try PlanRunner.enforce(made.document.policy, consequence: out.map { "\($0) was not saved" } ?? "nothing was changed", context)
        if let out {
            try PlanRunner.save(made.document.json, to: out, context)
            progress.stdout.write("\nSaved the failover's plan to \(out). Apply exactly this with: mcloud apply \(out)\n")
            report.outcome = .saved(out)
        } else if made.deployment.hasChanges {
            try ApplyRunner.confirm("Do you want to fail over?", autoApprove: approval.autoApprove, context)
            _ = try await ApplyRunner.execute(
                made.document, made.deployment, clouds: made.clouds, state: recorded, backend: backend, interrupts: interrupts,
                parallelism: approval.parallelism, progress
            )
            report.outcome = .applied
        } else {
            progress.stdout.write("\nNothing left to move off \(report.lost.joined(separator: ", ")).\n")
            report.outcome = .nothingToMove
        }
        if forgetLost {
            report.forgotten = try await Self.forget(Set(report.lost), backend: backend)
            if report.forgotten > 0 {
                let count = report.forgotten
                progress.stdout.write("Forgot \(count) resource\(count == 1 ? "" : "s") in \(report.lost.joined(separator: ", ")); they are left in those clouds as they are.\n")
            }
        }
        return report
    }

    /// `--forget-lost`: the lost clouds' resources leave the state; the clouds stay recorded as lost. How many left.
    static func forget(_ lost: Set<String>, backend: any StateBackend) async throws(CommandFailure) -> Int {
        do throws(StateError) {
            guard let current = try backend.read() else { return 0 }
            return try await StateRecorder(state: current, backend: backend).forgetResources(in: lost).count
        } catch {
            throw CommandFailure("forgetting the lost clouds' resources: \(error)")
        }
    }
}
