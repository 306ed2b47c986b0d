import MCloudCore
import MCloudDatabaseEngines
import MCloudEngine
import MCloudPlanner
import MCloudProvider
import MCloudViews

/// A restore drill: checks where the cell's DR leg may be restored, reads its newest backup, makes a scratch volume
/// and server that load it as they boot, waits for the server's report in the bucket, and deletes the scratch
/// resources whatever happened. Times come from the context's clock, so its RPO, RTO and time-out follow a test's.
struct DrillWorkflow {
    /// What the drill did so far, as it happens: the command prints it.
    enum Event: Sendable {
        case began(DrillReport)
        case made(ResourceAddress)
        case deleted(ResourceAddress)
        case leftBehind(DrillReport.Leftover)
    }

    var cell: String
    /// Restore there instead of the leg's own cloud.
    var cloud: String?
    var timeout: Int
    var context: CommandContext
    /// `--to`: the moment a PostgreSQL archive is restored to.
    var target: String?

    /// What the drill restores where, checked before anything is made.
    struct Setup {
        var database: Database
        var leg: ResourceState
        var target: Cloud
        /// The cell's primary in the state, whose archive (if it keeps one) the drill restores.
        var primary: String? = nil
    }

    /// Checks the cell, the leg and the target cloud against the state and the model; throws naming what is wrong.
    func prepare(_ model: Model, _ recorded: State) throws(CommandFailure) -> Setup {
        let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let legs = recorded.resources.filter { $0.address.kind == .backupBucket && !recorded.lost.contains($0.cloud) }
        guard let leg = legs.first(where: { ResourceBody($0.attributes).cellName == cell }) else {
            let names = legs.compactMap { ResourceBody($0.attributes).cellName }
            throw CommandFailure("the state records no DR leg of '\(cell)'\(Suggestion.didYouMean(cell, in: names).replacingQuotes)")
        }
        guard let workload = model.cells.first(where: { $0.name == cell && $0.kind == .database })?.workload,
              let database = model.databases.first(where: { $0.name == workload }) else {
            throw CommandFailure("the manifests have no database cell '\(cell)'")
        }
        let name = cloud ?? leg.cloud
        guard let target = clouds[name] else {
            throw CommandFailure("--cloud: no cloud named '\(name)'\(Suggestion.didYouMean(name, in: clouds.keys.sorted()).replacingQuotes)")
        }
        guard !recorded.lost.contains(name) else { throw CommandFailure("\(name) is recorded as lost; restore somewhere reachable (--cloud)") }
        // A leg on AWS gets a restore user of its own (RestoreIdentity); only another needs a backup profile.
        if leg.provider != .aws, let problem = RecoveryPointReader.withoutBackupIdentity(leg, cell: cell, clouds: clouds, reader: "the scratch server") {
            throw CommandFailure(problem)
        }
        let reasons = RestoreTarget.reasons(model, cell: cell, cloud: name, lost: Set(recorded.lost)) ?? []
        if let residency = reasons.first(where: { $0.filter == .residency }) {
            let law = residency.law.map { " under \($0)" } ?? ""
            throw CommandFailure("refused: a drill in \(name) would take \(cell)'s data out of its jurisdiction\(law): \(residency.detail)")
        }
        guard reasons.isEmpty else {
            throw CommandFailure("\(name) cannot run \(cell)'s restore: \(reasons.map(\.description).joined(separator: "; "))\(cloud == nil ? "; name a cloud that can with --cloud" : "")")
        }
        let primary = recorded.resources.first { resource in
            let body = ResourceBody(resource.attributes)
            return body.kind == .databaseServer && body.databaseRole == .primary && body.cellName == cell
        }
        return Setup(database: database, leg: leg, target: target, primary: primary.map { ResourceBody($0.attributes).name })
    }

    /// Runs the drill; the report says whether it passed. Throws only when nothing could be made (the leg cannot be
    /// read, holds no backup, or no provider serves the target).
    func run(_ setup: Setup, clouds: [String: Cloud], events: (Event) -> Void) async throws(CommandFailure) -> DrillReport {
        let catalog = context.providerCatalog
        let reader = RecoveryPointReader(clouds: clouds, registry: catalog)
        let began = context.clock.nowSeconds
        let scratch = ScratchDatabase(database: setup.database, leg: setup.leg, cloud: setup.target, stamp: Self.stamp(began))
        let provider: any ResourceProvider
        let legProvider: any ResourceProvider
        let lister: any BackupLister
        var backup: BackupObject
        // A dump replayed up to --to with the binary logs shipped after it (RecoveryPointReader.toMoment).
        var replayed = false
        do throws(ProviderError) {
            if let primary = setup.primary, let archived = try await reader.archived(setup.leg, server: primary, cell: cell) {
                backup = archived
            } else if let target, let primary = setup.primary {
                backup = try RecoveryPointReader.toMoment(target, objects: try await reader.objects(setup.leg, cell: cell), server: primary)
                replayed = true
            } else {
                let objects = try await reader.objects(setup.leg, cell: cell)
                guard let newest = objects.filter({ BackupKey.isWellFormed($0.key) }).max(by: { ($0.time, $0.key) < ($1.time, $1.key) }) else {
                    throw ProviderError(.failed, "\(cell)'s DR leg \(setup.leg.providerID) in \(setup.leg.cloud) holds no backup yet")
                }
                backup = setup.primary.map { RecoveryPointReader.replaying(newest, objects: objects, server: $0) } ?? newest
            }
            provider = try catalog.provider(named: scratch.bareServer.provider, for: setup.target)
            legProvider = try catalog.provider(named: setup.leg.provider, for: clouds[setup.leg.cloud] ?? setup.target)
            guard let legLister = legProvider as? any BackupLister else {
                throw ProviderError(.unavailable, "the \(setup.leg.provider) provider cannot read buckets")
            }
            lister = legLister
        } catch {
            throw CommandFailure(error.message)
        }
        let targeted: [(point: RecoveryPoints.Point, backup: BackupObject)]
        do throws(ProviderError) {
            var start = reader.point(leg: setup.leg, server: scratch.bareServer.address, backup: backup)
            if replayed { start.recoveryPoint.targetTime = target }
            targeted = try RecoveryPointReader.targeting([(start, backup)], target)
        } catch {
            throw CommandFailure(error.message)
        }
        var point = targeted[0].point.recoveryPoint
        backup = targeted[0].backup
        // A scratch server restoring an archive must never push into it.
        point.drill = PostgreSQLArchive.repository(named: point.object) != nil
        let restorer = RestoreIdentity(
            leg: setup.leg, cloud: clouds[setup.leg.cloud] ?? setup.target, point: point, server: ResourceBody(scratch.bareServer.body).name, stamp: Self.stamp(began)
        )
        point.location.identity = restorer?.identity
        let server = scratch.server(restoring: point)
        var report = DrillReport(
            cell: cell, cloud: setup.target.name, recoveryPoint: point, backupSize: backup.size, scratchServer: server.address, rpoSeconds: began - backup.time
        )
        events(.began(report))
        var made: [(DesiredResource, ObservedResource, any ResourceProvider)] = []
        do throws(ProviderError) {
            let resources = (restorer.map { [($0.resource, legProvider)] } ?? []) + [(scratch.volume, provider), (server, provider)]
            for (resource, maker) in resources {
                made.append((resource, try await maker.create(resource), maker))
                report.made.append(resource.address)
                events(.made(resource.address))
            }
            let restored = try await RestoreReportWait(timeout: timeout, context: context).report(of: ResourceBody(server.body).name, in: setup.leg, lister: lister)
            if let error = restored.error {
                report.failure = "the scratch server reports \(error) (its cloud-init log has the details)"
            } else {
                report.rtoSeconds = context.clock.nowSeconds - began
            }
        } catch {
            report.failure = error.message
        }
        // The restore user goes last, after the server whose key it made; its key dies with it.
        for (resource, observed, maker) in made.reversed() {
            let state = ResourceState(
                address: resource.address, provider: resource.provider, cloud: resource.cloud, providerID: observed.providerID,
                attributes: Dictionary(resource.body.objectPairs, uniquingKeysWith: { first, _ in first })
            )
            do throws(ProviderError) {
                try await maker.delete(state)
                report.deleted.append(resource.address)
                events(.deleted(resource.address))
            } catch {
                let leftover = DrillReport.Leftover(address: resource.address, error: error.message)
                report.leftovers.append(leftover)
                events(.leftBehind(leftover))
            }
        }
        return report
    }

    /// `20261202t030405`: a name part Nova, Cinder, EC2 and bucket keys all take.
    static func stamp(_ time: Int) -> String {
        BackupStatus.text(time).filter { $0.isNumber || $0 == "T" }.lowercased()
    }
}
