/// A lower bound for problems with few databases and clouds, above the LP relaxation: every combination of primaries
/// is bounded on its own.
///
/// With a combination's primaries fixed and each cloud's capacity priced, the rest falls apart service by service,
/// and each service's cheapest replicas (spread, egress next to its primaries, room the primaries leave) are found
/// exactly; any prices then bound every placement with those primaries. A depth-first walk over the databases
/// bounds every combination at the prices of `LagrangianBound`, cutting off the partial ones that cannot go below
/// the best placement known; each combination left then gets its own prices, by subgradient steps from those, as
/// high as its bound will go. The least of the combinations' bounds bounds the problem. The shared prices alone
/// gain little on the LP; each combination's own prices, with whole replicas and its primaries' room, are what lift
/// it close to the optimum (docs/planner.md, Tuning). Work is counted in services and primaries looked at.
struct PrimaryEnumeration {
    /// A combination of primaries and the bound on every placement that uses it.
    private struct Combination {
        var bound: Double
        var primaries: [Int]
    }

    private let problem: PlanningProblem
    private let startPrices: [ResourceVector]
    private var prices: [ResourceVector]
    /// What the replicas chosen take from each cloud, while `recording`.
    private var usage: [ResourceVector]
    private var recording = false
    private let ceiling: Double
    /// The depth after which all of a service's databases have their primaries; -1 for a service without any.
    private var settledAt: [Int]
    /// Each service at its cheapest over every primary of its databases, in every cloud's whole capacity: no
    /// combination does better.
    private var optimistic: [Double]
    /// The least that databases `depth...` can add, each at its cheapest primary.
    private var databaseFloor: [Double]
    /// Services and primaries the walk and the tightening may still look at.
    private var work: Int
    private var exhausted = false
    private var primaries: [Int]
    private var databaseLoad: [ResourceVector]
    private var found: [Combination] = []
    // Scratch for one service's clouds.
    private var candidateCost: [Double] = []
    private var candidateLimit: [Int] = []
    private var candidateCloud: [Int] = []

    /// How many combinations there are, or nil when more than `limit`.
    static func combinations(_ problem: PlanningProblem, limit: Int) -> Int? {
        var count = 1
        for cell in problem.databases {
            let (product, overflow) = count.multipliedReportingOverflow(by: cell.allowedPrimaries.count)
            guard !overflow, product <= limit else { return nil }
            count = product
        }
        return count
    }

    /// The least bound over every combination of primaries, from `prices` (per unit of each cloud's capacity;
    /// negative ones count as zero) and `tightening` subgradient steps per combination; `ceiling` (a placement's
    /// cost) when none goes below it. Nil when the walk needs more than `work`; the tightening stops where it ends.
    static func bound(_ problem: PlanningProblem, prices: [ResourceVector], ceiling: Double, work: Int, tightening: Int) -> Double? {
        var enumeration = PrimaryEnumeration(problem: problem, prices: prices, ceiling: ceiling, work: work)
        let capacityValue = problem.clouds.indices.reduce(0.0) { $0 + enumeration.price($1, problem.clouds[$1].capacity) }
        var fixed = problem.cheapestCDNCost - capacityValue
        for service in problem.services.indices where enumeration.settledAt[service] < 0 { fixed += enumeration.optimistic[service] }
        let pending = problem.services.indices.reduce(0.0) { $0 + (enumeration.settledAt[$1] >= 0 ? enumeration.optimistic[$1] : 0) }
        enumeration.descend(depth: 0, cost: fixed, pending: pending)
        guard !enumeration.exhausted else { return nil }
        let found = enumeration.found
        // Cheapest bound first: once a combination's bound is at or above the least tightened one, so are the rest's;
        // and once the work is spent, the rest keep the bounds the walk gave them.
        var least = ceiling
        for index in found.indices.sorted(by: { (found[$0].bound, $0) < (found[$1].bound, $1) }) {
            guard found[index].bound < least - Optimizer.tolerance(least) else { break }
            guard enumeration.work > 0 else { return min(least, found[index].bound) }
            least = min(least, enumeration.tighten(found[index], iterations: tightening, target: least))
        }
        return least
    }

    private init(problem: PlanningProblem, prices: [ResourceVector], ceiling: Double, work: Int) {
        self.problem = problem
        self.prices = prices.map { ResourceVector(cpu: max(0, $0.cpu), memory: max(0, $0.memory), storage: max(0, $0.storage)) }
        startPrices = self.prices
        usage = Array(repeating: .zero, count: problem.clouds.count)
        self.ceiling = ceiling
        self.work = work
        settledAt = problem.services.map { cell in cell.edges.map(\.cell).max() ?? -1 }
        optimistic = []
        databaseFloor = []
        primaries = Array(repeating: -1, count: problem.databases.count)
        databaseLoad = Array(repeating: .zero, count: problem.clouds.count)
        optimistic = problem.services.indices.map { cheapestOverPrimaries($0) }
        databaseFloor = Array(repeating: 0, count: problem.databases.count + 1)
        for database in problem.databases.indices.reversed() {
            let cell = problem.databases[database]
            let cheapest = cell.allowedPrimaries.map { cell.totalCost(primary: $0) + price($0, cell.demand) }.min() ?? .infinity
            databaseFloor[database] = databaseFloor[database + 1] + cheapest
        }
    }

    /// A service's cheapest replicas over every combination of its databases' primaries, or with no egress at all
    /// when those combinations are many: egress is never negative.
    private mutating func cheapestOverPrimaries(_ service: Int) -> Double {
        var databases: [Int] = []
        for edge in problem.services[service].edges where !databases.contains(edge.cell) { databases.append(edge.cell) }
        let count = databases.reduce(1) { $0 * problem.databases[$1].allowedPrimaries.count }
        guard count > 0, count <= Self.servicePrimaryCombinations else { return cheapestReplicas(service, egress: false) }
        var least = Double.infinity
        for index in 0..<count {
            var rest = index
            for database in databases {
                let options = problem.databases[database].allowedPrimaries
                primaries[database] = options[rest % options.count]
                rest /= options.count
            }
            least = min(least, cheapestReplicas(service, egress: true))
        }
        for database in databases { primaries[database] = -1 }
        return least
    }

    static let servicePrimaryCombinations = 64

    private func price(_ cloud: Int, _ amount: ResourceVector) -> Double {
        let price = prices[cloud]
        return price.cpu * amount.cpu + price.memory * amount.memory + price.storage * amount.storage
    }

    /// Assigns database `depth` every primary in turn; `cost` holds what is settled, `pending` the optimistic value
    /// of the services still waiting for a primary.
    private mutating func descend(depth: Int, cost: Double, pending: Double) {
        guard cost + pending + databaseFloor[depth] < ceiling - Optimizer.tolerance(ceiling) else { return }
        guard depth < problem.databases.count else {
            found.append(Combination(bound: cost, primaries: primaries))
            work -= primaries.count
            return
        }
        let cell = problem.databases[depth]
        for cloud in cell.allowedPrimaries {
            guard work > 0 else {
                exhausted = true
                return
            }
            work -= 1 + cell.connectedServices.count
            let load = databaseLoad[cloud] + cell.demand
            guard load.fits(within: problem.clouds[cloud].capacity) else { continue }
            primaries[depth] = cloud
            databaseLoad[cloud] = load
            var settled = cost + cell.totalCost(primary: cloud) + price(cloud, cell.demand)
            var waiting = pending
            for service in cell.connectedServices where settledAt[service] == depth {
                settled += cheapestReplicas(service, egress: true)
                waiting -= optimistic[service]
            }
            descend(depth: depth + 1, cost: settled, pending: waiting)
            databaseLoad[cloud] = databaseLoad[cloud] - cell.demand
        }
        primaries[depth] = -1
    }

    /// A service's cheapest replicas at the prices, within what the primaries placed so far leave of each cloud:
    /// with `egress`, next to its databases' primaries (all placed), else as if egress were free. Infinite when
    /// the replicas do not fit.
    private mutating func cheapestReplicas(_ service: Int, egress: Bool) -> Double {
        let cell = problem.services[service]
        let replicas = Double(cell.replicas)
        var constant = 0.0
        candidateCost.removeAll(keepingCapacity: true)
        candidateLimit.removeAll(keepingCapacity: true)
        candidateCloud.removeAll(keepingCapacity: true)
        for cloud in cell.allowed {
            let free = problem.clouds[cloud].capacity - (egress ? databaseLoad[cloud] : .zero)
            let limit = free.copies(of: cell.perReplica, limit: cell.maxPerCloud)
            guard limit > 0 else { continue }
            var cost = cell.replicaCost[cloud] + price(cloud, cell.perReplica)
            if egress {
                for edge in cell.edges where primaries[edge.cell] == cloud {
                    cost -= edge.trafficGiBMonth * problem.clouds[cloud].egressGiB / replicas
                }
            }
            // Sorted as it goes by (cost, cloud): a cell has a handful of clouds.
            var position = candidateCost.count
            candidateCost.append(cost)
            candidateLimit.append(limit)
            candidateCloud.append(cloud)
            while position > 0, candidateCost[position - 1] > cost {
                candidateCost.swapAt(position, position - 1)
                candidateLimit.swapAt(position, position - 1)
                candidateCloud.swapAt(position, position - 1)
                position -= 1
            }
        }
        if egress {
            for edge in cell.edges { constant += edge.trafficGiBMonth * problem.clouds[primaries[edge.cell]].egressGiB }
        }
        let cost = Self.cheapestFill(costs: candidateCost, limits: candidateLimit, replicas: cell.replicas, minClouds: cell.minClouds)
        if recording, cost.isFinite {
            var extra = cell.replicas - cell.minClouds
            for index in candidateCost.indices {
                let base = index < cell.minClouds ? 1 : 0
                let added = min(candidateLimit[index] - base, extra)
                extra -= added
                usage[candidateCloud[index]] = usage[candidateCloud[index]] + (base + added) * cell.perReplica
            }
        }
        return constant + cost
    }

    /// Raises one combination's bound by subgradient steps on its own capacity prices, from the shared ones (any
    /// prices bound it, so each may take its best), each step aimed at the ceiling and halved when it did not
    /// help. Stops at `target`: above the least bound so far, a combination changes nothing.
    private mutating func tighten(_ combination: Combination, iterations: Int, target: Double) -> Double {
        primaries = combination.primaries
        databaseLoad = Array(repeating: .zero, count: problem.clouds.count)
        for (database, cloud) in primaries.enumerated() { databaseLoad[cloud] = databaseLoad[cloud] + problem.databases[database].demand }
        let cdns = problem.cheapestCDNCost
        var best = combination.bound
        var rate = 1.0
        prices = startPrices
        recording = true
        defer { recording = false }
        for _ in 0..<iterations {
            usage = databaseLoad
            var value = cdns
            for cloud in problem.clouds.indices { value -= price(cloud, problem.clouds[cloud].capacity) }
            for (database, cloud) in primaries.enumerated() {
                value += problem.databases[database].totalCost(primary: cloud) + price(cloud, problem.databases[database].demand)
            }
            for service in problem.services.indices { value += cheapestReplicas(service, egress: true) }
            work -= problem.services.count
            if value > best { best = value } else { rate /= 2 }
            guard best < target - Optimizer.tolerance(target), value.isFinite else { break }
            var norm = 0.0
            var gradient: [ResourceVector] = []
            for cloud in problem.clouds.indices {
                let over = usage[cloud] - problem.clouds[cloud].capacity, price = prices[cloud]
                let step = ResourceVector(cpu: price.cpu <= 0 && over.cpu < 0 ? 0 : over.cpu,
                                          memory: price.memory <= 0 && over.memory < 0 ? 0 : over.memory,
                                          storage: price.storage <= 0 && over.storage < 0 ? 0 : over.storage)
                gradient.append(step)
                norm += step.cpu * step.cpu + step.memory * step.memory + step.storage * step.storage
            }
            guard norm > 0 else { break }
            let length = rate * (ceiling - value) / norm
            for cloud in problem.clouds.indices {
                let price = prices[cloud], step = gradient[cloud]
                prices[cloud] = ResourceVector(cpu: max(0, price.cpu + length * step.cpu), memory: max(0, price.memory + length * step.memory),
                                               storage: max(0, price.storage + length * step.storage))
            }
        }
        return best
    }

    /// The least cost of `replicas` over clouds sorted cheapest first, each with its limit, at least `minClouds`
    /// of them used: one in each of the `minClouds` cheapest, the rest cheapest first (as `Optimizer.fill`).
    static func cheapestFill(costs: [Double], limits: [Int], replicas: Int, minClouds: Int) -> Double {
        guard costs.count >= minClouds, minClouds <= replicas, limits.reduce(0, +) >= replicas else { return .infinity }
        var total = 0.0
        var left = replicas
        for index in 0..<minClouds {
            total += costs[index]
            left -= 1
        }
        for index in costs.indices where left > 0 {
            let added = min(limits[index] - (index < minClouds ? 1 : 0), left)
            total += Double(added) * costs[index]
            left -= added
        }
        return total
    }
}
