import MCloudCore
import MCloudDatabaseEngines

/// Turns the optimiser's final state into the plan: names instead of indices, costs broken down, and an
/// explanation for every cell, with every reason or counted (`Planner.Explanations`).
struct PlanBuilder {
    let problem: PlanningProblem
    let optimizer: Optimizer
    let lowerBound: Double
    let steps: Int

    var state: PlacementState { optimizer.state }
    private var currency: String { problem.model.application.currency }

    func name(_ cloud: Int) -> String { problem.clouds[cloud].cloud.name }

    func plan(explanations: Planner.Explanations) -> PlacementPlan {
        let services = problem.services.indices.map { index in
            PlacementPlan.ServicePlacement(
                cell: problem.services[index].cell.name,
                replicas: state.replicas[index].map { (cloud: name($0.cloud), count: $0.count) }
            )
        }
        let databases = problem.databases.indices.map { index in
            let primary = state.primary[index]
            let database = problem.databases[index].database
            let backup = problem.databases[index].bestBackup[primary]
            return PlacementPlan.DatabasePlacement(
                cell: problem.databases[index].cell.name, primary: name(primary), backup: backup.map(name),
                recovery: EngineCatalog.recoveryObjective(database, managed: database.runsManaged(on: problem.clouds[primary].cloud), hasLeg: backup != nil)
            )
        }
        let cdns = problem.cdns.indices.map { PlacementPlan.CDNPlacement(name: problem.cdns[$0].cdn.name, cloud: name(state.cdn[$0])) }
        var explained: [(considered: ConsideredClouds, explanation: PlacementPlan.Explanation)] = []
        if explanations != .none {
            let cache = ReasonCache(problem: problem, state: state)
            let builder = self
            let every = explanations == .every
            // A cell's explanation reads the placement and nothing another cell's writes, so cells are explained at
            // once, in ranges kept in order: the same plan as one at a time, on every core, since one at a time they
            // took a fifth of the largest inputs' time target.
            explained = Parallel.map(problem.services.count) { range in
                range.map { index in
                    let considered = builder.consideredService(index, cache, every: every)
                    return (Self.kept(considered, every: every), builder.explainService(index, considered, cache, every: every))
                }
            } + Parallel.map(problem.databases.count) { range in
                range.map { index in
                    let considered = builder.consideredDatabase(index, cache, every: every)
                    return (Self.kept(considered, every: every), builder.explainDatabase(index, considered, cache, every: every))
                }
            }
        }
        return PlacementPlan(
            application: problem.model.application.name,
            services: services.sorted { $0.cell < $1.cell },
            databases: databases.sorted { $0.cell < $1.cell },
            cdns: cdns,
            cost: cost(),
            explanations: explained.map(\.explanation).sorted { $0.cell < $1.cell },
            considered: explained.map(\.considered).sorted { $0.cell < $1.cell },
            steps: steps
        )
    }

    // MARK: Cost

    private func cost() -> PlacementPlan.Cost {
        var byCloud = [Double](repeating: 0, count: problem.clouds.count)
        var byCell: [(cell: String, amount: Double)] = []
        for (index, cell) in problem.services.enumerated() {
            var amount = 0.0
            for slot in state.replicas[index] {
                let replicas = Double(slot.count) * cell.replicaCost[slot.cloud]
                byCloud[slot.cloud] += replicas
                amount += replicas
            }
            for edge in cell.edges {
                let primary = state.primary[edge.cell]
                let outside = Double(cell.replicas - state.count(of: index, in: primary)) / Double(cell.replicas)
                let egress = edge.trafficGiBMonth * problem.clouds[primary].egressGiB * outside
                byCloud[primary] += egress
                amount += egress
            }
            byCell.append((cell.cell.name, amount))
        }
        for (index, cell) in problem.databases.enumerated() {
            let primary = state.primary[index]
            byCloud[primary] += cell.primaryCost[primary]
            if let backup = cell.bestBackup[primary] { byCloud[backup] += cell.backupCost[backup] }
            byCell.append((cell.cell.name, cell.totalCost(primary: primary)))
        }
        var byCDN: [(name: String, amount: Double)] = []
        for (index, cell) in problem.cdns.enumerated() {
            let cloud = state.cdn[index]
            byCloud[cloud] += cell.cost[cloud]
            byCDN.append((cell.cdn.name, cell.cost[cloud]))
        }
        let monthly = optimizer.totalCost
        return PlacementPlan.Cost(
            currency: currency,
            monthly: monthly,
            byCloud: problem.clouds.indices.filter { byCloud[$0] > 0 }.map { (name($0), byCloud[$0]) },
            byCell: byCell.sorted { $0.cell < $1.cell },
            byCDN: byCDN,
            lowerBound: lowerBound,
            gap: monthly > 0 ? max(0, (monthly - lowerBound) / monthly) : 0
        )
    }

    // MARK: Explanations

    /// What one more replica of `service` would cost in `cloud`, counting the egress it saves.
    func replicaCost(_ service: Int, in cloud: Int) -> Double {
        let cell = problem.services[service]
        var cost = cell.replicaCost[cloud]
        for edge in cell.edges where state.primary[edge.cell] == cloud {
            cost -= edge.trafficGiBMonth * problem.clouds[cloud].egressGiB / Double(cell.replicas)
        }
        return cost
    }

    /// What the plan keeps of a cell's considered clouds: all of them, or the chosen ones and the runner-up.
    private static func kept(_ considered: ConsideredClouds, every: Bool) -> ConsideredClouds {
        guard !every else { return considered }
        var kept = considered
        kept.candidates = considered.candidates.filter { $0.verdict == .chosen || $0.verdict == .runnerUp }
        return kept
    }

    /// The unused clouds counted by filter, each once under every filter among its reasons: a bit per filter, as a
    /// cell has hundreds of clouds and a set per cloud was most of the work.
    private static func counts(_ rejected: [[Reason]]) -> [(filter: Reason.Filter, clouds: Int)] {
        let filters = Reason.Filter.allCases
        var counts = [Int](repeating: 0, count: filters.count)
        for reasons in rejected {
            var seen = 0
            for reason in reasons { seen |= 1 << (filters.firstIndex(of: reason.filter) ?? 0) }
            for bit in filters.indices where seen & (1 << bit) != 0 { counts[bit] += 1 }
        }
        return filters.indices.filter { counts[$0] > 0 }.map { (filter: filters[$0], clouds: counts[$0]) }
    }

    /// A service cell's explanation. Without `every`, the reasons the cell itself makes (cost, capacity) are counted
    /// but not written out, and none is kept.
    private func explainService(_ index: Int, _ considered: ConsideredClouds, _ cache: ReasonCache, every: Bool) -> PlacementPlan.Explanation {
        let cell = problem.services[index]
        let used = Set(state.replicas[index].map(\.cloud))
        let highest = used.map { replicaCost(index, in: $0) }.max() ?? 0
        let candidates = cache.positions(of: considered.candidates)
        let filterReasons = cache.serviceReasons(cell)
        var rejected: [(cloud: String, reasons: [Reason])] = []
        for cloud in problem.clouds.indices where !used.contains(cloud) {
            var reasons = filterReasons[cloud]
            if reasons.isEmpty, let at = candidates[cloud] {
                let candidate = considered.candidates[at]
                if candidate.verdict == .full {
                    reasons.append(Reason(.capacity, candidate.capacity))
                } else if every {
                    let cost = candidate.perReplica ?? 0
                    let comparison = cost > highest + 1e-9
                        ? "more than the clouds chosen (at most \(Money.format(highest, currency)))"
                        : "as much as the clouds chosen; ties go to the earlier name"
                    reasons.append(Reason(.cost, "a replica costs \(Money.format(cost, currency)) a month here, \(comparison)"))
                } else {
                    reasons.append(Reason(.cost, ""))
                }
            }
            rejected.append((name(cloud), reasons))
        }
        let placement = state.replicas[index].map { "\(name($0.cloud)) \($0.count)" }.joined(separator: ", ")
        var rules: [String] = []
        let laws = Set(problem.model.application.residency.filter { rule in
            cell.service.data.contains(rule.data) && cell.audiences.contains(rule.audience)
        }.compactMap(\.law)).sorted()
        if !laws.isEmpty { rules.append("residency (\(laws.joined(separator: ", ")))") }
        if cell.service.isPublic { rules.append("latency") }
        let passing = "\(cell.allowed.count) of \(problem.clouds.count) clouds pass" + (rules.isEmpty ? " capability" : " \(rules.joined(separator: " and "))")
        let spread = "minClouds \(cell.minClouds), at most \(cell.maxPerCloud) of \(cell.replicas) per cloud"
        let why = "\(placement): the cheapest replicas with room; \(passing); \(spread)"
        return PlacementPlan.Explanation(
            cell: cell.cell.name, kind: .service, why: why, rejected: every ? rejected : [], counts: Self.counts(rejected.map(\.reasons))
        )
    }

    /// What the database's primary would cost in `cloud`, with its backup leg and the egress of the services as placed.
    func primaryCost(_ index: Int, in cloud: Int) -> Double {
        let cell = problem.databases[index]
        var cost = cell.totalCost(primary: cloud)
        for edge in cell.edges {
            let service = problem.services[edge.cell]
            let outside = Double(service.replicas - state.count(of: edge.cell, in: cloud)) / Double(service.replicas)
            cost += edge.trafficGiBMonth * problem.clouds[cloud].egressGiB * outside
        }
        return cost
    }

    /// A database cell's explanation; without `every`, as a service's.
    private func explainDatabase(_ index: Int, _ considered: ConsideredClouds, _ cache: ReasonCache, every: Bool) -> PlacementPlan.Explanation {
        let cell = problem.databases[index]
        let primary = state.primary[index]
        let backup = cell.bestBackup[primary]
        let current = primaryCost(index, in: primary)
        let recovery = cell.database.backup?.disasterRecovery
        let candidates = cache.positions(of: considered.candidates)
        let backupReasons = cache.backupReasons(cell), primaryReasons = cache.primaryReasons(cell)
        var rejected: [(cloud: String, reasons: [Reason])] = []
        for cloud in problem.clouds.indices where cloud != primary && cloud != backup {
            let info = problem.clouds[cloud]
            let asBackup = backupReasons[cloud]
            var reasons = primaryReasons[cloud]
            let candidate = reasons.isEmpty ? candidates[cloud].map { considered.candidates[$0] } : nil
            if let recovery {
                for reason in asBackup where !reasons.contains(reason) {
                    reasons.append(reason)
                }
                if asBackup.isEmpty {
                    if let reason = Filters.drReason(recovery, primary: problem.clouds[primary].cloud, backup: info.cloud) {
                        reasons.append(reason)
                    } else if let backup {
                        reasons.append(Reason(
                            .cost, every ? "as the backup leg it costs \(Money.format(cell.backupCost[cloud], currency)) a month, \(name(backup)) \(Money.format(cell.backupCost[backup], currency))" : ""
                        ))
                    }
                }
            }
            switch candidate?.verdict {
            case .full?: reasons.append(Reason(.capacity, candidate?.capacity ?? ""))
            case .noBackup?: reasons.append(Reason(.dr, "no other cloud could take the backup leg from here"))
            case .dearer?, .runnerUp?:
                let extra = (candidate?.monthly ?? current) - current
                reasons.append(Reason(.cost, every ? "as the primary it would cost \(Money.format(extra, currency)) a month more than \(name(primary))" : ""))
            case .chosen?, nil: break
            }
            rejected.append((name(cloud), reasons))
        }
        let laws = Set(problem.model.application.residency.filter { rule in
            cell.database.data.contains(rule.data) && cell.audiences.contains(rule.audience)
        }.compactMap(\.law)).sorted()
        var why = "primary \(name(primary))"
        if cell.database.standbys > 0 { why += " with \(cell.database.standbys) standby\(cell.database.standbys == 1 ? "" : "s")" }
        why += ": the cheapest with room, counting the egress of the services that use it; \(cell.allowedPrimaries.count) of \(problem.clouds.count) clouds can host \(cell.database.engine)"
        if !laws.isEmpty { why += " under \(laws.joined(separator: ", "))" }
        if let backup {
            why += "; backup leg \(name(backup)): the cheapest object storage" + (recovery?.differentVendor == true ? " of another vendor" : " in another cloud")
        }
        return PlacementPlan.Explanation(
            cell: cell.cell.name, kind: .database, why: why, rejected: every ? rejected : [], counts: Self.counts(rejected.map(\.reasons))
        )
    }
}

/// Filter reasons depend on a cell only through its rules (data classes, audiences, exposure, engine), so cells
/// that share those share the text; and the capacity left in each cloud is the same for every cell. All of it is
/// made up front, so the cells can be explained at once.
struct ReasonCache {
    /// Per cloud, by role and rules: `service|…`, `primary|…`, `backup|…`.
    private let reasons: [String: [[Reason]]]
    private let free: [String]
    private let cloudIndex: [String: Int]
    /// Cells with clouds ruled out by `maxLatencyMs`: their reasons are their own, not their rules'.
    private let local: Set<String>

    init(problem: PlanningProblem, state: PlacementState) {
        var reasons: [String: [[Reason]]] = [:]
        func fill(_ key: String, _ make: (PlanningProblem.CloudInfo) -> [Reason]) {
            if reasons[key] == nil { reasons[key] = problem.clouds.map(make) }
        }
        let local = Set(problem.filters.locality.keys)
        for cell in problem.services {
            fill(Self.serviceKey(cell, local)) { problem.filters.serviceReasons(cell.service, audiences: cell.audiences, $0) }
        }
        for cell in problem.databases {
            fill(Self.primaryKey(cell, local)) { problem.filters.primaryReasons(cell.database, audiences: cell.audiences, $0) }
            fill(Self.backupKey(cell)) { problem.filters.backupReasons(cell.database, audiences: cell.audiences, $0) }
        }
        self.reasons = reasons
        self.local = local
        free = problem.clouds.indices.map { Feasibility.describe(problem.clouds[$0].capacity - state.usage[$0]) }
        cloudIndex = Dictionary(problem.clouds.indices.map { (problem.clouds[$0].cloud.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private static func serviceKey(_ cell: PlanningProblem.ServiceCell, _ local: Set<String>) -> String {
        "service|\(cell.service.data.joined(separator: ","))|\(cell.audiences.joined(separator: ","))|\(cell.service.isPublic)" + own(cell.cell, local)
    }

    private static func primaryKey(_ cell: PlanningProblem.DatabaseCell, _ local: Set<String>) -> String {
        "primary|\(cell.database.engine)|\(cell.database.data.joined(separator: ","))|\(cell.audiences.joined(separator: ","))" + own(cell.cell, local)
    }

    private static func own(_ cell: Cell, _ local: Set<String>) -> String {
        local.contains(cell.name) ? "|\(cell.name)" : ""
    }

    private static func backupKey(_ cell: PlanningProblem.DatabaseCell) -> String {
        "backup|\(cell.database.data.joined(separator: ","))|\(cell.audiences.joined(separator: ","))"
    }

    func serviceReasons(_ cell: PlanningProblem.ServiceCell) -> [[Reason]] { table(Self.serviceKey(cell, local)) }

    func primaryReasons(_ cell: PlanningProblem.DatabaseCell) -> [[Reason]] { table(Self.primaryKey(cell, local)) }

    func backupReasons(_ cell: PlanningProblem.DatabaseCell) -> [[Reason]] { table(Self.backupKey(cell)) }

    /// Every cell of the problem has its table; a cell from elsewhere gets none on every cloud.
    private func table(_ key: String) -> [[Reason]] { reasons[key] ?? Array(repeating: [], count: free.count) }

    func freeText(_ cloud: Int) -> String { free[cloud] }

    /// Each cloud's position among `candidates`, the first where its name repeats; nil where it is not one.
    func positions(of candidates: [ConsideredClouds.Candidate]) -> [Int?] {
        var positions = [Int?](repeating: nil, count: free.count)
        for (position, candidate) in candidates.enumerated() {
            guard let cloud = cloudIndex[candidate.cloud], positions[cloud] == nil else { continue }
            positions[cloud] = position
        }
        return positions
    }
}
