import MCloudCore
import MCloudDatabaseEngines
import MCloudEngine
import MCloudProvider
import MCloudViews

/// A failover's plan: the recorded state and the manifests placed without the lost clouds, each database whose
/// primary was lost recreated with its newest backup as the recovery point, refused before anything changes when a
/// cell cannot be restored. Ages come from the context's clock. A new primary restoring from a leg on AWS gets a
/// restore user of its own in the plan, which the failover deletes once that restore reported or `timeout` passed.
struct FailoverWorkflow {
    var manifests: ManifestOptions
    var clouds: [String]
    /// How long to wait for a restore that reads with a restore user, in seconds.
    var timeout: Int
    var context: CommandContext
    /// `--to`: the moment each PostgreSQL archive is restored to, instead of its newest point.
    var target: String? = nil

    /// The plan and the report to print before it.
    struct Prepared {
        var made: PlanRunner.Made
        var report: FailoverReport
        var restorers: [Restorer]
    }

    /// A restore user the plan makes, the leg it reads and the name of the new primary it serves.
    struct Restorer {
        var identity: RestoreIdentity
        var leg: ResourceState
        var server: String
        var serverAddress: ResourceAddress
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
                let reader = RecoveryPointReader(clouds: inputs.clouds, registry: context.providerCatalog)
                restores = try RecoveryPointReader.targeting(try await reader.points(needs, target: target), target)
            } catch {
                throw EngineError("reading the DR legs: \(error.message)")
            }
        } catch {
            throw .lines(["error: \(error.message)", "Nothing was changed."])
        }
        let (points, restorers) = Self.restoreUsers(restores.map(\.point), needs: needs, inputs: inputs, stamp: DrillWorkflow.stamp(context.clock.nowSeconds))
        inputs.desired = RecoveryPoints.applying(points, to: inputs.desired).map { resource in
            var resource = resource
            resource.dependencies += restorers.filter { resource.address == $0.serverAddress }.map(\.identity.resource.address)
            return resource
        } + restorers.map(\.identity.resource)
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
        return Prepared(made: made, report: report, restorers: restorers)
    }

    /// The points with a restore user named for each whose leg is on AWS, and those users.
    private static func restoreUsers(
        _ points: [RecoveryPoints.Point], needs: [RecoveryPoints.Need], inputs: DeploymentInputs, stamp: String
    ) -> ([RecoveryPoints.Point], [Restorer]) {
        var restorers: [Restorer] = []
        let named = points.map { point in
            guard let leg = needs.first(where: { $0.server == point.server })?.leg, let cloud = inputs.clouds[leg.cloud],
                  let server = inputs.desired.first(where: { $0.address == point.server }).map({ ResourceBody($0.body).name }),
                  let identity = RestoreIdentity(leg: leg, cloud: cloud, point: point.recoveryPoint, server: server, stamp: stamp)
            else { return point }
            restorers.append(Restorer(identity: identity, leg: leg, server: server, serverAddress: point.server))
            var point = point
            point.recoveryPoint.location.identity = identity.identity
            return point
        }
        return (named, restorers)
    }

    /// Waits for each restore that reads with a restore user, prints how it ended, then deletes the user (after the
    /// time-out too, as drill does) and drops it from the state: its key, in the new primary's user data, dies with it.
    private func finish(_ restorers: [Restorer], clouds: [String: Cloud], backend: any StateBackend, progress: CommandContext) async throws(CommandFailure) {
        for restorer in restorers {
            let address = restorer.identity.resource.address
            do throws(ProviderError) {
                guard let cloud = clouds[restorer.leg.cloud] else { throw ProviderError(.unavailable, "cloud \(restorer.leg.cloud) is not in the catalog") }
                let provider = try context.providerCatalog.provider(named: restorer.leg.provider, for: cloud)
                progress.stdout.write("The restore of \(restorer.server) \(await outcome(restorer, provider: provider)).\n")
                try await provider.delete(ResourceState(
                    address: address, provider: restorer.leg.provider, cloud: restorer.leg.cloud, providerID: restorer.identity.identity.user,
                    attributes: Dictionary(restorer.identity.resource.body.objectPairs, uniquingKeysWith: { first, _ in first })
                ))
            } catch {
                progress.stdout.write("Could not delete the restore user \(address): \(error.message); the next plan deletes it.\n")
                continue
            }
            progress.stdout.write("Deleted its restore user \(address).\n")
            do throws(StateError) {
                guard let current = try backend.read() else { continue }
                let recorder = StateRecorder(state: current, backend: backend)
                try await recorder.forget(address)
                // The new primary was made after its user; the state must not name a user that is gone.
                for var resource in current.resources where resource.dependencies.contains(address) {
                    resource.dependencies.removeAll { $0 == address }
                    try await recorder.record(resource)
                }
            } catch {
                throw CommandFailure("forgetting the restore user \(address): \(error)")
            }
        }
    }

    /// How the restore ended, as its report in the leg says, or why that is not known.
    private func outcome(_ restorer: Restorer, provider: any ResourceProvider) async -> String {
        guard let lister = provider as? any BackupLister else { return "was not watched: the \(restorer.leg.provider) provider cannot read buckets" }
        do throws(ProviderError) {
            let report = try await RestoreReportWait(timeout: timeout, context: context).report(of: restorer.server, in: restorer.leg, lister: lister)
            return report.error.map { "failed: \($0) (its cloud-init log has the details)" } ?? "finished from \(report.object)"
        } catch {
            return "is not known: \(error.message)"
        }
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
            try await finish(prepared.restorers, clouds: made.clouds, backend: backend, progress: progress)
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
