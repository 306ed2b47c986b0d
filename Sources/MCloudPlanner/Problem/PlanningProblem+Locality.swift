import MCloudCore

extension PlanningProblem {
    /// A service or database cell by its index in the problem.
    enum CellIndex: Hashable {
        case service(Int)
        case database(Int)
    }

    func cellIndex(_ name: String) -> CellIndex? {
        if let index = services.firstIndex(where: { $0.cell.name == name }) { return .service(index) }
        return databases.firstIndex(where: { $0.cell.name == name }).map(CellIndex.database)
    }

    /// The clouds the cell may use: a service's for replicas, a database's for its primary.
    func allowedClouds(_ name: String) -> [Int] {
        switch cellIndex(name) {
        case .service(let index): return services[index].allowed
        case .database(let index): return databases[index].allowedPrimaries
        case nil: return []
        }
    }

    /// Whether the cell's spread can be met on that many clouds (capacity aside).
    func canSpread(_ name: String, over clouds: Int) -> Bool {
        switch cellIndex(name) {
        case .service(let index):
            let cell = services[index]
            return clouds >= cell.minClouds && clouds * cell.maxPerCloud >= cell.replicas
        case .database: return clouds >= 1
        case nil: return false
        }
    }

    /// The least the cell costs on `clouds` by its own prices, capacity and egress aside: a database at its cheapest
    /// primary, a service one replica in each of its `minClouds` cheapest clouds and the rest cheapest first up to
    /// floor(maxShare x R) a cloud. Nil where its spread cannot be met there.
    func cheapestLayout(_ name: String, over clouds: [Int]) -> Double? {
        switch cellIndex(name) {
        case .service(let index):
            let cell = services[index]
            guard canSpread(name, over: clouds.count) else { return nil }
            let costs = clouds.map { cell.replicaCost[$0] }.sorted()
            var left = cell.replicas - cell.minClouds
            var total = costs.prefix(cell.minClouds).reduce(0, +)
            for (position, cost) in costs.enumerated() where left > 0 {
                let more = min(left, cell.maxPerCloud - (position < cell.minClouds ? 1 : 0))
                total += Double(more) * cost
                left -= more
            }
            return total
        case .database(let index):
            return clouds.map { databases[index].totalCost(primary: $0) }.min()
        case nil:
            return nil
        }
    }

    /// Rules the cloud out for the cell, with the reason every explanation of it shows.
    mutating func exclude(_ cell: CellIndex, cloud: Int, reason: Reason) {
        let name: String
        switch cell {
        case .service(let index):
            services[index].allowed.removeAll { $0 == cloud }
            services[index].replicaCost[cloud] = .infinity
            name = services[index].cell.name
        case .database(let index):
            databases[index].allowedPrimaries.removeAll { $0 == cloud }
            databases[index].primaryCost[cloud] = .infinity
            name = databases[index].cell.name
        }
        filters.locality[name, default: [:]][clouds[cloud].cloud.name, default: []].append(reason)
    }

    /// Applies `exclusions`, then rules out, until nothing changes, every cloud of a cell with a `maxLatencyMs`
    /// edge that no cloud the other end may use is within the limit of. Each such cloud breaks the rule in every
    /// placement, so the problem keeps every placement that meets it and its bound stays a bound. A cell left with no
    /// cloud gets a hint naming the edge and the nearest pair of clouds its two ends could use without the rule.
    mutating func restrictLocality(_ locality: Locality, exclusions: [Locality.Exclusion] = []) {
        let rules = locality.rules
        guard !rules.isEmpty else { return }
        let unrestricted = Dictionary((rules.map(\.dependent) + rules.map(\.dependency)).map { ($0, allowedClouds($0)) }, uniquingKeysWith: { first, _ in first })
        for exclusion in exclusions {
            guard let cell = cellIndex(exclusion.cell), allowedClouds(exclusion.cell).contains(exclusion.cloud) else { continue }
            exclude(cell, cloud: exclusion.cloud, reason: exclusion.reason)
        }
        let latency = locality.latency
        var changed = true
        while changed {
            changed = false
            for edge in rules {
                guard let limit = edge.limit, let dependent = cellIndex(edge.dependent), let dependency = cellIndex(edge.dependency) else { continue }
                for (cell, name, other) in [(dependent, edge.dependent, edge.dependency), (dependency, edge.dependency, edge.dependent)] {
                    let others = allowedClouds(other)
                    guard !others.isEmpty else { continue }
                    for cloud in allowedClouds(name) {
                        guard let nearest = others.min(by: { (latency[cloud][$0], $0) < (latency[cloud][$1], $1) }), latency[cloud][nearest] > limit else { continue }
                        exclude(cell, cloud: cloud, reason: Reason(
                            .locality,
                            "no cloud \(other) may use is within \(locality.ms(limit)) (dependsOn \(edge.workload)); the nearest is \(locality.name(nearest)) at \(locality.ms(latency[cloud][nearest]))"
                        ))
                        changed = true
                    }
                }
            }
        }
        for edge in rules {
            guard let limit = edge.limit, let from = unrestricted[edge.dependent], let to = unrestricted[edge.dependency] else { continue }
            let stranded = [edge.dependent, edge.dependency].filter { allowedClouds($0).isEmpty }
            guard !stranded.isEmpty else { continue }
            var nearest: (from: Int, to: Int, ms: Double)?
            for a in from {
                for b in to where nearest.map({ latency[a][b] < $0.ms }) ?? true { nearest = (a, b, latency[a][b]) }
            }
            // A cell stranded by another edge's rule gets that edge's hint, not this one's.
            guard let nearest, nearest.ms > limit else { continue }
            let needed = nearest.ms.rounded(.up)
            let service = edge.dependent.split(separator: "@").first.map(String.init) ?? edge.dependent
            let hint = LocalityHint(
                service: service, dependency: edge.workload,
                text: "\(edge.label): the nearest clouds the two may use are \(locality.name(nearest.from)) and \(locality.name(nearest.to)), \(locality.ms(nearest.ms)) apart: raise \(service)'s dependsOn \(edge.workload) maxLatencyMs to \(NumberText.format(needed))",
                neededMs: needed
            )
            for cell in stranded { localityHints[cell, default: []].append(hint) }
        }
    }
}
