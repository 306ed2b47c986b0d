import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider
import MCloudViews

/// Reads, for `mcloud status`, every cloud the state names: each cloud's providers refresh what the state records
/// there (one list per kind, as plan's refresh does) and list each DR leg's backups, all clouds at once and each
/// within `timeout` seconds, so a cloud that does not answer is `Unknown` with the reason and never holds the rest up.
struct StatusReader {
    var timeout: Int
    var context: CommandContext

    /// The readings by cloud, and the DR legs' newest backups and verdicts by bucket address.
    func read(
        application: String, state: State, clouds: [String: Cloud]
    ) async -> (readings: [String: StatusDocument.Reading], legs: [ResourceAddress: StatusDocument.Backup]) {
        let lost = Set(state.lost)
        let byCloud = Dictionary(grouping: state.resources, by: \.cloud)
        let catalog = context.providerCatalog
        let now = context.clock.nowSeconds
        let timeout = timeout
        let results = await withTaskGroup(of: (String, CloudRead).self) { group in
            for (name, recorded) in byCloud {
                if lost.contains(name) {
                    group.addTask { (name, CloudRead(reading: .unreachable("recorded as lost by a failover; it is not read"))) }
                    continue
                }
                guard let cloud = clouds[name] else {
                    group.addTask { (name, CloudRead(reading: .unreachable("not in the catalog"))) }
                    continue
                }
                group.addTask {
                    let read = await Self.bounded(timeout) {
                        await Self.read(cloud, recorded: recorded, application: application, catalog: catalog, now: now)
                    }
                    return (name, read)
                }
            }
            var collected: [String: CloudRead] = [:]
            for await (name, read) in group { collected[name] = read }
            return collected
        }
        var legs: [ResourceAddress: StatusDocument.Backup] = [:]
        for read in results.values { legs.merge(read.legs) { first, _ in first } }
        return (results.mapValues(\.reading), legs)
    }

    /// What one cloud gave.
    struct CloudRead: Sendable {
        var reading: StatusDocument.Reading
        var legs: [ResourceAddress: StatusDocument.Backup] = [:]
    }

    /// Refreshes one cloud through each of its providers and lists its DR legs; the first failure makes it unreachable.
    private static func read(
        _ cloud: Cloud, recorded: [ResourceState], application: String, catalog: any ProviderCatalog, now: Int
    ) async -> CloudRead {
        var observed: [ObservedResource] = []
        var legs: [ResourceAddress: StatusDocument.Backup] = [:]
        do throws(ProviderError) {
            for (name, resources) in Dictionary(grouping: recorded, by: \.provider).sorted(by: { $0.key < $1.key }) {
                let provider = try catalog.provider(named: name, for: cloud)
                // The recorded bodies stand for the desired ones: the Kubernetes provider then knows which replicas
                // an autoscaler owns, and does not take its changes for drift.
                let desired = resources.map { DesiredResource(address: $0.address, provider: $0.provider, cloud: $0.cloud, type: $0.address.kind, body: $0.attributes, dependencies: []) }
                observed += try await provider.refresh(application: application, desired: desired, recorded: resources)
                guard let lister = provider as? any BackupLister else { continue }
                for bucket in resources where bucket.address.kind == .backupBucket {
                    let leg = try await BackupsView.Leg.read(bucket, through: lister, now: now)
                    let verdict = leg.problems(now: now).first.map { StatusVerdict(.degraded, $0) } ?? .healthy
                    legs[bucket.address] = StatusDocument.Backup(
                        bucket: bucket.providerID, newest: leg.backups.last?.time, archived: leg.archive?.archivedAt ?? leg.binaryLog?.closedAt, standbys: leg.replication?.standbys ?? [],
                        verdict: verdict
                    )
                }
            }
        } catch {
            return CloudRead(reading: .unreachable(error.message))
        }
        return CloudRead(reading: .read(observed), legs: legs)
    }

    /// `work`'s result, or the cloud as unreachable once `seconds` have passed. On the machine's clock, not the
    /// context's: a cloud's answer takes real time, and a test's manual clock would end every read at once.
    private static func bounded(_ seconds: Int, _ work: @escaping @Sendable () async -> CloudRead) async -> CloudRead {
        let first = FirstResult<CloudRead>()
        let reading = Task { first.offer(await work()) }
        let timer = Task {
            guard (try? await SystemClock().sleep(seconds: Double(seconds))) != nil else { return }
            first.offer(CloudRead(reading: .unreachable("no answer within \(seconds) s (--timeout)")))
        }
        let result = await first.value()
        // What the read still waits on is abandoned: its requests end with their own time limits or with the process.
        reading.cancel()
        timer.cancel()
        return result
    }
}

extension StatusReader {
    /// Checks the manifests and the cells once, and returns what reads the state and the clouds into a status: once,
    /// for each request with --listen or each --watch reading, so each sees the state as it is then. `report --status`
    /// reads through it too, so the page and `mcloud status` never judge apart.
    static func reading(
        manifests: ManifestOptions, state: StateOptions, cells: [String], timeout: Int, _ context: CommandContext
    ) throws(CommandFailure) -> @Sendable () async throws(CommandFailure) -> StatusDocument {
        let model = try PlacementLoader.model(manifests, context)
        let application = model.application
        let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var laws: [String: Set<String>] = [:]
        for rule in application.residency { if let law = rule.law { laws[rule.audience, default: []].insert(law) } }
        let joined = laws.mapValues { $0.sorted().joined(separator: ",") }
        let backend = try state.backend()
        let wanted = Set(cells)
        let read: @Sendable () async throws(CommandFailure) -> StatusDocument = { () async throws(CommandFailure) -> StatusDocument in
            guard let stored = try StateOptions.read(backend), !stored.resources.isEmpty else {
                throw CommandFailure("the state records nothing to report on", hint: "apply the application first: mcloud apply")
            }
            if let owner = stored.application, owner != application.name {
                throw CommandFailure("this state belongs to application \(owner), not \(application.name)")
            }
            let known = Set(stored.resources.compactMap(StatusDocument.cell(of:)))
            if let unknown = wanted.sorted().first(where: { !known.contains($0) }) {
                throw CommandFailure("the state records no cell '\(unknown)'\(Suggestion.didYouMean(unknown, in: known.sorted()).replacingQuotes)")
            }
            let (readings, legs) = await StatusReader(timeout: timeout, context: context).read(application: application.name, state: stored, clouds: clouds)
            return StatusDocument(
                application: application.name, time: context.clock.nowSeconds, resources: stored.resources, readings: readings, legs: legs,
                laws: joined, cells: wanted, primaries: stored.primaries
            )
        }
        return read
    }
}
