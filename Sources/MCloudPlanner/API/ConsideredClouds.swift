public import MCloudCore

/// For one cell, every cloud that passed its filters (capability, residency and, for public services, latency), with
/// what the cell would cost there given the rest of the placement and a verdict on each: the chosen ones, the
/// runner-up, the dearer ones and the ones without room. What SkyPilot prints as "Considered resources", with the
/// residency rules every one of them meets (with its jurisdiction tags) and the capacity each has left.
public struct ConsideredClouds: Sendable, Hashable {
    public enum Verdict: String, Sendable, Hashable {
        /// It holds the cell: replicas of a service, a database's primary.
        case chosen
        /// The cheapest of the others with room: where the cell would go next.
        case runnerUp = "runner-up"
        /// Room, but dearer than the runner-up.
        case dearer
        /// Not enough capacity left for a replica, or for the database with its standbys.
        case full
        /// A database's primary here would leave no cloud for its DR backup leg.
        case noBackup = "no-backup"
    }

    public struct Candidate: Sendable, Hashable {
        public var cloud: String
        public var verdict: Verdict
        /// The cell's monthly cost with this cloud in the place of the chosen ones: a database's primary (with its
        /// standbys, the backup leg it would have from here and the egress of its services as placed) moved here; every
        /// replica of a service at this cloud's price, with the egress to its databases as placed (spread aside). Nil
        /// where the cell cannot be placed at all (`noBackup`).
        public var monthly: Double?
        /// A service's replica here, a month, with the egress it adds or saves; nil for a database.
        public var perReplica: Double?
        /// A service's replicas placed here; nil for a database.
        public var replicas: Int?
        /// The backup leg a database's primary here would have.
        public var backup: String?
        /// The cloud's jurisdiction tags, which meet every residency rule of the cell.
        public var jurisdiction: [String]
        /// The capacity the cloud has left with the placement made, against what the cell needs.
        public var capacity: String

        public init(
            cloud: String, verdict: Verdict, monthly: Double?, perReplica: Double? = nil, replicas: Int? = nil, backup: String? = nil,
            jurisdiction: [String], capacity: String
        ) {
            self.cloud = cloud
            self.verdict = verdict
            self.monthly = monthly
            self.perReplica = perReplica
            self.replicas = replicas
            self.backup = backup
            self.jurisdiction = jurisdiction
            self.capacity = capacity
        }
    }

    public var cell: String
    public var kind: Cell.Kind
    /// The residency rules that apply to the cell, each with the jurisdictions it allows: `152-FZ: allows [RU]`, or
    /// `no residency rule applies`.
    public var residency: String
    /// Cheapest first (`monthly`), then by name.
    public var candidates: [Candidate]
    /// What moving to the runner-up would add a month: for a database, moving its primary there; for a service, one
    /// replica moved there from the dearest cloud chosen. Nil without a runner-up.
    public var runnerUpDelta: Double?

    public init(cell: String, kind: Cell.Kind, residency: String, candidates: [Candidate], runnerUpDelta: Double?) {
        self.cell = cell
        self.kind = kind
        self.residency = residency
        self.candidates = candidates
        self.runnerUpDelta = runnerUpDelta
    }

    public var chosen: [String] { candidates.filter { $0.verdict == .chosen }.map(\.cloud) }
    public var runnerUp: Candidate? { candidates.first { $0.verdict == .runnerUp } }
}

extension PlanBuilder {
    /// The considered clouds of service cell `index`: every cloud that passes its filters; without `every`, with no
    /// capacity text (the plan keeps only the chosen clouds and the runner-up, and prints neither's capacity).
    func consideredService(_ index: Int, _ cache: ReasonCache, every: Bool) -> ConsideredClouds {
        let cell = problem.services[index]
        let placed = Dictionary(state.replicas[index].map { ($0.cloud, $0.count) }, uniquingKeysWith: +)
        let highest = placed.keys.map { replicaCost(index, in: $0) }.max() ?? 0
        // Egress to each database as placed, when no replica shares its primary's cloud.
        let allAway = cell.edges.map { (cloud: state.primary[$0.cell], cost: $0.trafficGiBMonth * problem.clouds[state.primary[$0.cell]].egressGiB) }
        var candidates: [ConsideredClouds.Candidate] = []
        for cloud in cell.allowed {
            let perReplica = replicaCost(index, in: cloud)
            // The egress of the edges whose database is elsewhere, summed in order with no array per cloud.
            var away = 0.0
            for edge in allAway where edge.cloud != cloud { away += edge.cost }
            let monthly = Double(cell.replicas) * cell.replicaCost[cloud] + away
            let free = problem.clouds[cloud].capacity - state.usage[cloud]
            let verdict: ConsideredClouds.Verdict, capacity: String
            if let count = placed[cloud] {
                (verdict, capacity) = (.chosen, every ? "holds \(count) replica\(count == 1 ? "" : "s"); \(cache.freeText(cloud)) free" : "")
            } else if free.copies(of: cell.perReplica, limit: 1) == 0 {
                (verdict, capacity) = (.full, every ? "needs \(Feasibility.describe(cell.perReplica)) per replica, \(cache.freeText(cloud)) free" : "")
            } else {
                (verdict, capacity) = (
                    .dearer, every ? "room for \(free.copies(of: cell.perReplica, limit: cell.replicas)) of \(cell.replicas) replicas; \(cache.freeText(cloud)) free" : ""
                )
            }
            candidates.append(.init(
                cloud: name(cloud), verdict: verdict, monthly: monthly, perReplica: perReplica, replicas: placed[cloud] ?? 0,
                jurisdiction: problem.clouds[cloud].cloud.jurisdiction, capacity: capacity
            ))
        }
        let runnerUp = Self.markRunnerUp(&candidates) { $0.perReplica ?? .infinity }
        return ConsideredClouds(
            cell: cell.cell.name, kind: .service, residency: residencyRules(data: cell.service.data, audiences: cell.audiences), candidates: Self.sorted(candidates),
            runnerUpDelta: runnerUp.map { ($0.perReplica ?? 0) - highest }
        )
    }

    /// The considered clouds of database cell `index`: every cloud that passes its primary's filters; without
    /// `every`, as a service's.
    func consideredDatabase(_ index: Int, _ cache: ReasonCache, every: Bool) -> ConsideredClouds {
        let cell = problem.databases[index]
        let primary = state.primary[index]
        let current = primaryCost(index, in: primary)
        let passing = cache.primaryReasons(cell)
        var candidates: [ConsideredClouds.Candidate] = []
        for cloud in problem.clouds.indices where passing[cloud].isEmpty {
            let backup = cell.bestBackup[cloud]
            let free = problem.clouds[cloud].capacity - state.usage[cloud]
            let verdict: ConsideredClouds.Verdict, capacity: String
            if cloud == primary {
                (verdict, capacity) = (.chosen, every ? "holds it; \(cache.freeText(cloud)) free" : "")
            } else if !cell.demand.fits(within: free) {
                (verdict, capacity) = (.full, every ? "needs \(Feasibility.describe(cell.demand)) with its standbys, \(cache.freeText(cloud)) free" : "")
            } else {
                (verdict, capacity) = (cell.needsBackup && backup == nil ? .noBackup : .dearer, every ? "room; \(cache.freeText(cloud)) free" : "")
            }
            candidates.append(.init(
                cloud: name(cloud), verdict: verdict, monthly: verdict == .noBackup ? nil : primaryCost(index, in: cloud),
                backup: backup.map(name), jurisdiction: problem.clouds[cloud].cloud.jurisdiction, capacity: capacity
            ))
        }
        let runnerUp = Self.markRunnerUp(&candidates) { $0.monthly ?? .infinity }
        return ConsideredClouds(
            cell: cell.cell.name, kind: .database, residency: residencyRules(data: cell.database.data, audiences: cell.audiences),
            candidates: Self.sorted(candidates), runnerUpDelta: runnerUp.map { ($0.monthly ?? 0) - current }
        )
    }

    /// Marks the cheapest dearer candidate, by `cost` then by name, as the runner-up, and returns it.
    private static func markRunnerUp(_ candidates: inout [ConsideredClouds.Candidate], by cost: (ConsideredClouds.Candidate) -> Double) -> ConsideredClouds.Candidate? {
        guard let best = candidates.indices.filter({ candidates[$0].verdict == .dearer })
            .min(by: { (cost(candidates[$0]), candidates[$0].cloud) < (cost(candidates[$1]), candidates[$1].cloud) })
        else { return nil }
        candidates[best].verdict = .runnerUp
        return candidates[best]
    }

    private static func sorted(_ candidates: [ConsideredClouds.Candidate]) -> [ConsideredClouds.Candidate] {
        candidates.sorted { ($0.monthly ?? .infinity, $0.cloud) < ($1.monthly ?? .infinity, $1.cloud) }
    }

    /// The residency rules that apply to a cell of these data classes and audiences; every considered cloud meets them.
    private func residencyRules(data: [String], audiences: [String]) -> String {
        let rules = problem.model.application.residency.filter { data.contains($0.data) && audiences.contains($0.audience) }
        guard !rules.isEmpty else { return "no residency rule applies" }
        return rules.map { rule in
            "\(rule.law ?? "\(rule.data) data of \(rule.audience)"): allows [\(rule.allowed.joined(separator: ", "))]"
        }.joined(separator: "; ")
    }
}
