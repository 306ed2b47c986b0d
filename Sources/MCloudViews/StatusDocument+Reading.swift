public import MCloudProvider

extension StatusDocument {
    /// What one cloud's read-only refresh gave.
    public enum Reading: Sendable, Hashable {
        case read([ObservedResource])
        /// It did not answer in time, failed, or is recorded as lost; the reason says which.
        case unreachable(String)
    }

    /// The status of what `resources` (the state's) records, judged against the clouds' `readings` (by cloud) and the
    /// DR legs' `legs` (by bucket address: newest backup and the schedule's verdict, which the command line reads).
    /// `laws` gives each audience's laws; `cells`, when not empty, keeps only those cells. `primaries` is the state's
    /// record of switched-over cells: their members show the roles they have now, not those they were made with.
    public init(
        application: String, time: Int, resources: [ResourceState], readings: [String: Reading], legs: [ResourceAddress: Backup] = [:],
        laws: [String: String] = [:], cells wanted: Set<String> = [], primaries: [ResourceAddress: ResourceAddress] = [:]
    ) {
        struct Key: Hashable, Comparable {
            var cell: String
            var cloud: String
            static func < (lhs: Key, rhs: Key) -> Bool { (lhs.cell, lhs.cloud) < (rhs.cell, rhs.cloud) }
        }
        var observed: [String: [ResourceAddress: ObservedResource]] = [:]
        for (cloud, reading) in readings {
            guard case .read(let found) = reading else { continue }
            observed[cloud] = Dictionary(found.map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
        }
        var sites: [Key: Site] = [:]
        var verdicts: [Key: [StatusVerdict]] = [:]
        var audiences: [String: String] = [:]
        for resource in resources {
            guard let cell = Self.cell(of: resource), wanted.isEmpty || wanted.contains(cell) else { continue }
            if let audience = ResourceBody(resource.attributes).label(ResourceLabels.audience) { audiences[cell] = audience }
            let key = Key(cell: cell, cloud: resource.cloud)
            var site = sites[key] ?? Site(cloud: resource.cloud, verdict: .healthy)
            let verdict = Self.judge(
                resource, reading: readings[resource.cloud], live: observed[resource.cloud]?[resource.address], legs: legs, primaries: primaries, into: &site
            )
            verdicts[key, default: []].append(verdict)
            sites[key] = site
        }
        var grouped: [String: [Site]] = [:]
        for key in sites.keys.sorted() {
            guard var site = sites[key] else { continue }
            site.verdict = StatusVerdict.worst(verdicts[key] ?? [])
            grouped[key.cell, default: []].append(site)
        }
        let cells = grouped.keys.sorted().map { name in
            Cell(name: name, audience: audiences[name], law: audiences[name].flatMap { laws[$0] }, sites: grouped[name] ?? [])
        }
        let clouds = readings.keys.sorted().map { name -> Cloud in
            guard case .unreachable(let reason) = readings[name] else { return Cloud(name: name, up: true) }
            return Cloud(name: name, up: false, reason: reason)
        }
        self.init(application: application, time: time, clouds: clouds, cells: cells)
    }

    /// The cell a recorded resource belongs to, as plan names it (`accounts-db@ru`), or the CDN it is; nil for what
    /// no cell owns (namespaces, identities).
    public static func cell(of resource: ResourceState) -> String? {
        let body = ResourceBody(resource.attributes)
        return body.cellName ?? (resource.address.kind == .cdnResource ? body.name : nil)
    }

    /// One recorded resource's verdict; what it shows (replicas, database, leg, CDN, drift) goes into `site`.
    private static func judge(
        _ resource: ResourceState, reading: Reading?, live: ObservedResource?, legs: [ResourceAddress: Backup], primaries: [ResourceAddress: ResourceAddress],
        into site: inout Site
    ) -> StatusVerdict {
        let kind = resource.address.kind
        let name = "\(kind) \(ResourceBody(resource.attributes).name)"
        let verdict: StatusVerdict
        if case .unreachable(let reason)? = reading {
            verdict = StatusVerdict(.unknown, "\(resource.cloud) cannot be read: \(reason)")
        } else if reading == nil {
            verdict = StatusVerdict(.unknown, "\(resource.cloud) was not read")
        } else if let live {
            let projected = FieldDiff.projected(live.attributes, onto: resource.attributes)
            site.drift += FieldDiff.changes(from: resource.attributes, to: projected).map { "\(name): \($0.path)" }
            if live.isBeingDeleted {
                verdict = StatusVerdict(.degraded, "\(name) is being deleted")
            } else if let warning = live.warnings.first {
                verdict = StatusVerdict(.degraded, warning)
            } else {
                verdict = live.rollout.map(Self.judge) ?? .healthy
            }
        } else {
            verdict = StatusVerdict(.missing, "\(name) is not in \(resource.cloud): deleted outside mcloud")
        }
        if let rollout = live?.rollout {
            site.replicas = Rollout(
                desired: (site.replicas?.desired ?? 0) + rollout.desired, ready: (site.replicas?.ready ?? 0) + rollout.ready,
                updated: (site.replicas?.updated ?? 0) + rollout.updated, observed: (site.replicas?.observed ?? true) && rollout.observed
            )
        }
        switch kind {
        case .databaseServer, .managedDatabase:
            var role = ResourceBody(live?.attributes ?? resource.attributes).databaseRole?.rawValue ?? (kind == .managedDatabase ? "managed" : "server")
            if primaries.values.contains(resource.address) { role = ResourceBody.DatabaseRole.primary.rawValue }
            if primaries.keys.contains(resource.address) { role = ResourceBody.DatabaseRole.standby.rawValue }
            site.databases.append(Database(role: role, verdict: verdict))
        case .backupBucket:
            let leg = legs[resource.address]
            let worst = StatusVerdict.worst([verdict] + (leg.map { [$0.verdict] } ?? []))
            site.backups.append(Backup(bucket: resource.providerID, newest: leg?.newest, archived: leg?.archived, standbys: leg?.standbys ?? [], verdict: worst))
            return worst
        case .cdnResource:
            site.cdn = live.map { $0.isBeingDeleted ? "deleting" : "deployed" } ?? (verdict.health == .unknown ? "unknown" : "missing")
        default:
            break
        }
        return verdict
    }

    /// A Deployment's rollout as `kubectl rollout status` reads it: still rolling out while the controller has not
    /// seen the change or replicas run an older template; degraded once rolled out with fewer ready than desired.
    static func judge(_ rollout: Rollout) -> StatusVerdict {
        if !rollout.observed || rollout.updated < rollout.desired {
            return StatusVerdict(.progressing, "rolling out: \(rollout.updated) of \(rollout.desired) replicas updated")
        }
        if rollout.ready < rollout.desired {
            return StatusVerdict(.degraded, "\(rollout.ready) of \(rollout.desired) replicas ready")
        }
        return .healthy
    }
}
