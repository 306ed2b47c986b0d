import Foundation
import MCloudCore
import MCloudDatabaseEngines
import MCloudEngine
import MCloudPlanner
import MCloudProvider

/// `mcloud drill CELL`: proves a DR leg restores, and how fast.
struct DrillCommand: Command {
    static let spec = CommandSpec(
        name: "drill",
        abstract: "Restore a database cell's latest DR backup into a scratch server, measure RPO and RTO, and remove it.",
        discussion: "Reads the cell's DR leg from the state and its newest backup from the bucket, makes a scratch volume and database server in the leg's cloud (or --cloud) that loads that backup as it boots, with the engine catalog's restore step, and waits for the server's report in the bucket. Prints the RPO (the backup's age when the drill began) and the RTO (from making the scratch server until its engine answered with the data restored), then deletes the scratch server and volume whatever happened; the report stays in the bucket beside the backups as the drill's record. Refuses a target cloud where the cell's data may not live (naming the law) or that cannot run the cell's engine. Holds the state lock; changes nothing the state records. Exits 1 when the drill fails or times out.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            StateOptions.option,
            CommandSpec.Option(names: ["--cloud"], valueName: "CLOUD", help: "Restore there instead of the DR leg's own cloud."),
            CommandSpec.Option(names: ["--timeout"], valueName: "SECONDS", help: "Give up waiting for the restore after SECONDS (default: 1800)."),
        ],
        positionals: [CommandSpec.Positional(name: "CELL", help: "The database cell, such as accounts-db@ru.")]
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var cell: String
    var cloud: String?
    var timeout: Int

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        cell = arguments.positionals.first ?? ""
        cloud = arguments.value("--cloud")
        let text = arguments.value("--timeout") ?? "1800"
        guard let seconds = Int(text), (1...86400).contains(seconds) else {
            throw UsageError(message: "--timeout must be a whole number of seconds from 1 to 86400, not \"\(text)\"")
        }
        timeout = seconds
    }

    func run(_ context: CommandContext) async -> ExitCode {
        guard let backend = state.backend(context) else { return .failure }
        return await ApplyRunner.withLock(backend, operation: "drill", context) { _, _ in
            let stored = StateOptions.read(backend, context)
            guard stored.ok, let model = PlanRunner.model(manifests, context) else { return .failure }
            let recorded = stored.state ?? State()
            let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            do throws(DrillFailure) {
                let setup = try prepare(model, recorded, clouds)
                return await drill(setup, clouds: clouds, context)
            } catch {
                context.stderr.write("error: \(error.message)\n")
                return .failure
            }
        }
    }

    struct DrillFailure: Error {
        var message: String
    }

    /// What the drill restores where, checked before anything is made.
    struct Setup {
        var database: Database
        var leg: ResourceState
        var target: Cloud
    }

    private func prepare(_ model: Model, _ recorded: State, _ clouds: [String: Cloud]) throws(DrillFailure) -> Setup {
        let legs = recorded.resources.filter { $0.address.kind == .backupBucket && !recorded.lost.contains($0.cloud) }
        guard let leg = legs.first(where: { ResourceBody($0.attributes).cellName == cell }) else {
            let names = legs.compactMap { ResourceBody($0.attributes).cellName }
            throw DrillFailure(message: "the state records no DR leg of '\(cell)'\(Suggestion.didYouMean(cell, in: names).replacingQuotes)")
        }
        guard let workload = model.cells.first(where: { $0.name == cell && $0.kind == .database })?.workload,
              let database = model.databases.first(where: { $0.name == workload }) else {
            throw DrillFailure(message: "the manifests have no database cell '\(cell)'")
        }
        let name = cloud ?? leg.cloud
        guard let target = clouds[name] else {
            throw DrillFailure(message: "--cloud: no cloud named '\(name)'\(Suggestion.didYouMean(name, in: clouds.keys.sorted()).replacingQuotes)")
        }
        guard !recorded.lost.contains(name) else { throw DrillFailure(message: "\(name) is recorded as lost; restore somewhere reachable (--cloud)") }
        let reasons = RestoreTarget.reasons(model, cell: cell, cloud: name, lost: Set(recorded.lost)) ?? []
        if let residency = reasons.first(where: { $0.filter == .residency }) {
            let law = residency.law.map { " under \($0)" } ?? ""
            throw DrillFailure(message: "refused: a drill in \(name) would take \(cell)'s data out of its jurisdiction\(law): \(residency.detail)")
        }
        guard reasons.isEmpty else {
            throw DrillFailure(message: "\(name) cannot run \(cell)'s restore: \(reasons.map(\.description).joined(separator: "; "))\(cloud == nil ? "; name a cloud that can with --cloud" : "")")
        }
        return Setup(database: database, leg: leg, target: target)
    }

    private func drill(_ setup: Setup, clouds: [String: Cloud], _ context: CommandContext) async -> ExitCode {
        let registry = ProviderRegistry(environment: context.environment)
        let reader = RecoveryPointReader(clouds: clouds, registry: registry)
        let began = Int(Date().timeIntervalSince1970)
        let scratch = ScratchDatabase(database: setup.database, leg: setup.leg, cloud: setup.target, stamp: Self.stamp(began))
        let provider: any ResourceProvider
        let lister: any BackupLister
        let backup: BackupObject
        do throws(ProviderError) {
            guard let newest = try await reader.list(setup.leg, cell: cell).max(by: { ($0.time, $0.key) < ($1.time, $1.key) }) else {
                throw ProviderError(.failed, "\(cell)'s DR leg \(setup.leg.providerID) in \(setup.leg.cloud) holds no backup yet")
            }
            backup = newest
            provider = try registry.provider(named: scratch.bareServer.provider, for: setup.target)
            guard let legLister = try registry.provider(named: setup.leg.provider, for: clouds[setup.leg.cloud] ?? setup.target) as? any BackupLister else {
                throw ProviderError(.unavailable, "the \(setup.leg.provider) provider cannot read buckets")
            }
            lister = legLister
        } catch {
            context.stderr.write("error: \(error.message)\n")
            return .failure
        }
        let point = reader.point(leg: setup.leg, server: scratch.bareServer.address, backup: backup)
        let server = scratch.server(restoring: point)
        context.stdout.write("Drill of \(cell): s3://\(point.bucket)/\(point.object) from \(setup.leg.cloud), taken \(point.takenAt) (\(BackupsView.duration(began - backup.time)) ago),\n")
        context.stdout.write("  restored into the scratch server \(server.address)\n")
        var made: [(DesiredResource, ObservedResource)] = []
        let outcome: Result<RestoreReport, ProviderError>
        do throws(ProviderError) {
            for resource in [scratch.volume, server] {
                made.append((resource, try await provider.create(resource)))
                context.stdout.write("  made \(resource.address)\n")
            }
            outcome = .success(try await waitForReport(ResourceBody(server.body).name, in: setup.leg, lister: lister, context))
        } catch {
            outcome = .failure(error)
        }
        let finished = Int(Date().timeIntervalSince1970)
        var cleaned = true
        for (resource, observed) in made.reversed() {
            let state = ResourceState(
                address: resource.address, provider: resource.provider, cloud: resource.cloud, providerID: observed.providerID,
                attributes: Dictionary(resource.body.objectPairs, uniquingKeysWith: { first, _ in first })
            )
            do throws(ProviderError) {
                try await provider.delete(state)
                context.stdout.write("  deleted \(resource.address)\n")
            } catch {
                cleaned = false
                context.stderr.write("error: deleting the scratch \(resource.address): \(error.message); the next apply deletes it (it carries the application's labels)\n")
            }
        }
        switch outcome {
        case .failure(let error):
            context.stderr.write("error: the drill of \(cell) failed: \(error.message)\n")
            return .failure
        case .success(let report):
            if let error = report.error {
                context.stderr.write("error: the drill of \(cell) failed: the scratch server reports \(error) (its cloud-init log has the details)\n")
                return .failure
            }
            context.stdout.write("\nRestore drill of \(cell) passed: \(backup.size) bytes restored and served in \(setup.target.name).\n")
            context.stdout.write("  RPO \(BackupsView.duration(began - backup.time)): the age of the newest backup when the drill began\n")
            context.stdout.write("  RTO \(BackupsView.duration(finished - began)): from making the scratch server to its engine serving the restored data\n")
            return cleaned ? .success : .failure
        }
    }

    /// Polls the leg for the scratch server's report every 2 s until --timeout.
    private func waitForReport(_ server: String, in leg: ResourceState, lister: any BackupLister, _ context: CommandContext) async throws(ProviderError) -> RestoreReport {
        let key = DatabaseUserData.restoreReportKey(server: server)
        let deadline = Date().addingTimeInterval(Double(timeout))
        while Date() < deadline {
            if let bytes = try await lister.object(key, in: leg) {
                guard let report = RestoreReport(json: bytes) else { throw ProviderError(.failed, "s3://\(leg.providerID)/\(key) is not a restore report") }
                return report
            }
            try? await Task.sleep(for: .seconds(2))
        }
        throw ProviderError(.failed, "no restore report at s3://\(leg.providerID)/\(key) within \(timeout) s (--timeout)")
    }

    /// `20261202t030405`: a name part Nova, Cinder, EC2 and bucket keys all take.
    static func stamp(_ time: Int) -> String {
        BackupStatus.text(time).filter { $0.isNumber || $0 == "T" }.lowercased()
    }
}
