import MCloudCore

/// Where dependents must stay close (docs/planner.md, "Locality"): every `dependsOn` edge between two cells, the
/// latency between every pair of clouds, and what the planner makes of them. An edge with `maxLatencyMs` is a hard
/// rule: each cloud of the dependent cell within the limit of each cloud of the cell it uses. The rule is pairwise, so
/// it enters the search as clouds ruled out: first those that no cloud the other end may use is near (implied by the
/// rule, so the bound stays a bound), then, where a placement still breaks it, one end kept where it is and the other
/// kept near it, or both moved into a group of clouds near each other, each way placed again and the cheapest kept.
/// An edge without a rule only warns.
struct Locality {
    struct Edge: Hashable {
        /// A service cell, and the cell (service or database) it uses, by name.
        var dependent: String
        var dependency: String
        /// The `dependsOn` entry's name, for messages: `dependsOn cart-cache`.
        var workload: String
        var limit: Double?

        var label: String {
            "\(dependent) -> \(dependency)" + (limit.map { " (maxLatencyMs \(NumberText.format($0)))" } ?? "")
        }
    }

    /// A cloud one cell may not use, and why.
    struct Exclusion: Hashable {
        var cell: String
        var cloud: Int
        var reason: Reason
    }

    /// Within this round-trip time and one jurisdiction, an edge without a rule is not worth a warning.
    static let warningDistanceMs = 30.0

    let edges: [Edge]
    /// Round-trip time between clouds, by the problem's cloud indices.
    let latency: [[Double]]
    let clouds: [Cloud]

    var rules: [Edge] { edges.filter { $0.limit != nil } }

    init(_ problem: PlanningProblem) {
        clouds = problem.clouds.map(\.cloud)
        latency = CloudLatency.matrix(clouds)
        let model = problem.model
        let scopes = Dictionary(
            model.services.map { ($0.name, $0.scope) } + model.databases.map { ($0.name, $0.scope) }, uniquingKeysWith: { first, _ in first }
        )
        let placed = Set(problem.services.map(\.cell.name) + problem.databases.map(\.cell.name))
        let audiences = model.application.audiences.map(\.name)
        var edges: [Edge] = []
        for cell in problem.services {
            for dependency in cell.service.dependsOn {
                guard let scope = scopes[dependency.name] else { continue }
                for target in scope.cells(of: dependency.name, from: cell.cell.audience, audiences: audiences) where placed.contains(target) && target != cell.cell.name {
                    edges.append(Edge(dependent: cell.cell.name, dependency: target, workload: dependency.name, limit: dependency.maxLatencyMs))
                }
            }
        }
        self.edges = edges
    }

    func name(_ cloud: Int) -> String { clouds[cloud].name }

    func ms(_ value: Double) -> String { "\(NumberText.format(value)) ms" }

    // MARK: A placement against the edges

    /// The farthest pair of clouds the edge's two cells use, from the plan; nil when either is not placed.
    func farthest(_ edge: Edge, _ sites: [String: [Int]]) -> (from: Int, to: Int, ms: Double)? {
        guard let from = sites[edge.dependent], let to = sites[edge.dependency] else { return nil }
        var worst: (from: Int, to: Int, ms: Double)?
        for a in from {
            for b in to where worst.map({ latency[a][b] > $0.ms }) ?? true {
                worst = (a, b, latency[a][b])
            }
        }
        return worst
    }

    /// Each cell's clouds in a plan, by index: a service's replicas' clouds, a database's primary.
    func sites(_ plan: PlacementPlan) -> [String: [Int]] {
        let index = Dictionary(clouds.indices.map { (clouds[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
        var sites: [String: [Int]] = [:]
        for service in plan.services { sites[service.cell] = service.replicas.compactMap { index[$0.cloud] } }
        for database in plan.databases { sites[database.cell] = index[database.primary].map { [$0] } }
        return sites
    }

    /// The first rule the plan breaks, with its farthest pair.
    func broken(_ plan: PlacementPlan) -> (edge: Edge, from: Int, to: Int, ms: Double)? {
        let sites = sites(plan)
        for edge in rules {
            guard let limit = edge.limit, let worst = farthest(edge, sites), worst.ms > limit else { continue }
            return (edge, worst.from, worst.to, worst.ms)
        }
        return nil
    }

    /// For every edge without a rule whose cells run across a border or farther apart than `warningDistanceMs`: a
    /// warning on the dependent cell, naming both cells, their farthest clouds and the latency between them.
    func warnings(_ plan: PlacementPlan) -> [PlacementPlan.Warning] {
        let sites = sites(plan)
        var warnings: [PlacementPlan.Warning] = []
        for edge in edges where edge.limit == nil {
            guard let from = sites[edge.dependent], let to = sites[edge.dependency] else { continue }
            var worst: (from: Int, to: Int, ms: Double, border: Bool)?
            for a in from {
                for b in to where a != b {
                    let border = CloudLatency.crossesBorder(clouds[a], clouds[b])
                    guard border || latency[a][b] > Self.warningDistanceMs else { continue }
                    if let current = worst, (current.border ? 1 : 0, current.ms) >= (border ? 1 : 0, latency[a][b]) { continue }
                    worst = (a, b, latency[a][b], border)
                }
            }
            guard let worst else { continue }
            let why = worst.border
                ? "across a border ([\(clouds[worst.from].jurisdiction.joined(separator: ", "))] and [\(clouds[worst.to].jurisdiction.joined(separator: ", "))])"
                : "farther than \(ms(Self.warningDistanceMs))"
            warnings.append(PlacementPlan.Warning(
                cell: edge.dependent,
                message: "\(edge.dependent) on \(name(worst.from)) and \(edge.dependency) on \(name(worst.to)), which it depends on, are \(ms(worst.ms)) apart, \(why); set maxLatencyMs on its dependsOn \(edge.workload) to bound it"
            ))
        }
        return warnings
    }

    // MARK: Keeping a broken rule's cells together

    /// The ways to rule out clouds so the next placement meets `edge`: the cell it uses kept on its clouds and the
    /// dependent kept within the limit of all of them; the other way round; and both moved together into a group. A
    /// way is left out where it leaves a cell too few clouds for its spread.
    func separations(_ edge: Edge, _ plan: PlacementPlan, _ problem: PlanningProblem) -> [[Exclusion]] {
        guard let limit = edge.limit else { return [] }
        let sites = sites(plan)
        guard let from = sites[edge.dependent], let to = sites[edge.dependency] else { return [] }
        let sides = [(kept: edge.dependency, keptOn: to, near: edge.dependent), (kept: edge.dependent, keptOn: from, near: edge.dependency)]
        return sides.compactMap { side in
            let allowed = problem.allowedClouds(side.near)
            let within = allowed.filter { cloud in side.keptOn.allSatisfy { latency[cloud][$0] <= limit } }
            guard !within.isEmpty, problem.canSpread(side.near, over: within.count) else { return nil }
            let kept = side.keptOn.map(name).joined(separator: ", ")
            var exclusions = problem.allowedClouds(side.kept).filter { !side.keptOn.contains($0) }.map { cloud in
                Exclusion(cell: side.kept, cloud: cloud, reason: Reason(
                    .locality, "\(side.kept) stays on \(kept) and \(side.near) within \(ms(limit)) of it (dependsOn \(edge.workload))"
                ))
            }
            for cloud in allowed where !within.contains(cloud) {
                guard let far = side.keptOn.max(by: { (latency[cloud][$0], $1) < (latency[cloud][$1], $0) }) else { continue }
                exclusions.append(Exclusion(cell: side.near, cloud: cloud, reason: Reason(
                    .locality, "\(ms(latency[cloud][far])) from \(side.kept) on \(name(far)), limit \(NumberText.format(limit)) (dependsOn \(edge.workload))"
                )))
            }
            return exclusions
        } + together(edge, limit, problem)
    }

    /// The groups tried by the third way, cheapest first by the cells' own prices: more cost a placement each.
    static let groupsTried = 4

    /// The third way, for when neither end can stay where it is: both ends moved into one group of clouds all within
    /// the limit of each other, so any placement inside it meets the rule. A group grows from each cloud either end
    /// may use, nearest first; the distinct groups where both cells can spread are tried cheapest first by the two
    /// cells' own layouts there (capacity and egress aside, so the cheapest may not fit).
    func together(_ edge: Edge, _ limit: Double, _ problem: PlanningProblem) -> [[Exclusion]] {
        let ends = [edge.dependent, edge.dependency]
        let allowed = ends.map { Set(problem.allowedClouds($0)) }
        let candidates = allowed[0].union(allowed[1]).sorted()
        var groups: [(cost: Double, group: [Int])] = []
        for seed in candidates {
            var group = [seed]
            for cloud in candidates.sorted(by: { (latency[seed][$0], $0) < (latency[seed][$1], $1) }) where cloud != seed {
                if group.allSatisfy({ latency[cloud][$0] <= limit }) { group.append(cloud) }
            }
            group.sort()
            let costs = ends.indices.map { problem.cheapestLayout(ends[$0], over: group.filter(allowed[$0].contains)) }
            guard let first = costs[0], let second = costs[1], !groups.contains(where: { $0.group == group }) else { continue }
            groups.append((first + second, group))
        }
        return groups.sorted { $0.cost != $1.cost ? $0.cost < $1.cost : $0.group.lexicographicallyPrecedes($1.group) }
            .prefix(Self.groupsTried).map { _, group in
                let text = group.map(name).joined(separator: ", ")
                return ends.indices.flatMap { end in
                    allowed[end].sorted().filter { !group.contains($0) }.map { cloud in
                        Exclusion(cell: ends[end], cloud: cloud, reason: Reason(
                            .locality, "\(edge.dependent) and \(edge.dependency) are kept together on \(text), within \(ms(limit)) of each other (dependsOn \(edge.workload))"
                        ))
                    }
                }
            }
    }

    /// A rule the search could not meet, though no single cloud rules it out: the plan fails and says so.
    func unmet(_ edge: Edge, from: Int, to: Int, ms value: Double) -> PlacementFailure.InfeasibleCell {
        PlacementFailure.InfeasibleCell(
            cell: edge.dependent,
            summary: "\(edge.dependent): no placement found within \(edge.label): \(name(from)) and \(name(to)) are \(ms(value)) apart",
            rejected: [],
            hints: ["raise maxLatencyMs on \(edge.dependent)'s dependsOn \(edge.workload), or give both cells clouds close to each other"]
        )
    }
}
