import Foundation

/// Searches for the cheapest placement that meets every hard rule.
///
/// A construction places every cell in a priority order and, when a cell does not fit, starts again with the
/// cells that did not fit first, so a cheap early choice cannot starve a later cell. Local search then
/// re-places service cells exactly, moves database primaries with the services that talk to them, and
/// ruins and recreates random groups of cells around one cloud. Work is counted in steps (cells
/// re-placed), never in time, and random choices come from a generator seeded by the input.
struct Optimizer {
    enum Item: Hashable {
        case service(Int)
        case database(Int)
    }

    let problem: PlanningProblem
    private(set) var state: PlacementState
    /// Cells by the clouds they use; a service cell is its index, a database cell the service count plus its index.
    private var members: CloudMembers
    private(set) var steps = 0
    let budget: Int
    private var random: SplitMix64

    init(problem: PlanningProblem, budget: Int, seed: UInt64) {
        self.problem = problem
        self.state = PlacementState(problem: problem)
        self.members = CloudMembers(clouds: problem.clouds.count)
        self.budget = budget
        self.random = SplitMix64(seed: seed)
    }

    // MARK: Costs

    func serviceCost(_ service: Int) -> Double {
        let cell = problem.services[service]
        var cost = 0.0
        for slot in state.replicas[service] { cost += Double(slot.count) * cell.replicaCost[slot.cloud] }
        let replicas = Double(cell.replicas)
        for edge in cell.edges {
            let primary = state.primary[edge.cell]
            guard primary >= 0 else { continue }
            let inside = Double(state.count(of: service, in: primary))
            cost += edge.trafficGiBMonth * problem.clouds[primary].egressGiB * (replicas - inside) / replicas
        }
        return cost
    }

    func databaseCost(_ database: Int) -> Double {
        let primary = state.primary[database]
        return primary >= 0 ? problem.databases[database].totalCost(primary: primary) : 0
    }

    func cdnCost(_ cdn: Int) -> Double {
        let cloud = state.cdn[cdn]
        return cloud >= 0 ? problem.cdns[cdn].cost[cloud] : 0
    }

    var totalCost: Double {
        problem.services.indices.reduce(0) { $0 + serviceCost($1) }
            + problem.databases.indices.reduce(0) { $0 + databaseCost($1) }
            + problem.cdns.indices.reduce(0) { $0 + cdnCost($1) }
    }

    // MARK: Placing one cell

    /// The cheapest replica counts for a service cell in the capacity left, or nil when it does not fit.
    func bestAllocation(_ service: Int, prices: Prices? = nil) -> [Slot]? {
        let cell = problem.services[service]
        let replicas = Double(cell.replicas)
        var candidates: [Candidate] = []
        candidates.reserveCapacity(cell.allowed.count)
        for cloud in cell.allowed {
            let free = problem.clouds[cloud].capacity - state.usage[cloud]
            let limit = free.copies(of: cell.perReplica, limit: cell.maxPerCloud)
            guard limit > 0 else { continue }
            var cost = cell.replicaCost[cloud]
            for edge in cell.edges where state.primary[edge.cell] == cloud {
                cost -= edge.trafficGiBMonth * problem.clouds[cloud].egressGiB / replicas
            }
            if let prices { cost += prices.cost(of: cell.perReplica, in: cloud) }
            candidates.append(Candidate(cost: cost, cloud: cloud, limit: limit))
        }
        return Self.fill(candidates, replicas: cell.replicas, minClouds: cell.minClouds)
    }

    struct Candidate {
        var cost: Double
        var cloud: Int
        var limit: Int
    }

    /// Linear costs and "at least minClouds clouds": one replica in each of the minClouds cheapest clouds, then
    /// the rest cheapest first. An exchange argument shows nothing cheaper meets the rules.
    static func fill(_ candidates: [Candidate], replicas: Int, minClouds: Int) -> [Slot]? {
        guard candidates.count >= minClouds, minClouds <= replicas,
              candidates.reduce(0, { $0 + $1.limit }) >= replicas else { return nil }
        let sorted = candidates.sorted { ($0.cost, $0.cloud) < ($1.cost, $1.cloud) }
        var counts = [Int](repeating: 0, count: sorted.count)
        var left = replicas
        for index in 0..<minClouds {
            counts[index] = 1
            left -= 1
        }
        for index in sorted.indices where left > 0 {
            let added = min(sorted[index].limit - counts[index], left)
            counts[index] += added
            left -= added
        }
        guard left == 0 else { return nil }
        return sorted.indices.filter { counts[$0] > 0 }.map { Slot(cloud: sorted[$0].cloud, count: counts[$0]) }
            .sorted { $0.cloud < $1.cloud }
    }

    /// The cheapest primary with room, counting the egress of service replicas already placed elsewhere.
    func bestPrimary(_ database: Int, prices: Prices? = nil) -> Int? {
        let cell = problem.databases[database]
        var best: (cost: Double, cloud: Int)?
        for cloud in cell.allowedPrimaries {
            let free = problem.clouds[cloud].capacity - state.usage[cloud]
            guard cell.demand.fits(within: free) else { continue }
            var cost = cell.totalCost(primary: cloud)
            for edge in cell.edges where !state.replicas[edge.cell].isEmpty {
                let service = problem.services[edge.cell]
                let outside = Double(service.replicas - state.count(of: edge.cell, in: cloud))
                cost += edge.trafficGiBMonth * problem.clouds[cloud].egressGiB * outside / Double(service.replicas)
            }
            if let prices { cost += prices.cost(of: cell.demand, in: cloud) }
            if let current = best, (current.cost, current.cloud) <= (cost, cloud) { continue }
            best = (cost, cloud)
        }
        return best?.cloud
    }

    mutating func place(_ service: Int, _ slots: [Slot]) {
        let unit = problem.services[service].perReplica
        for slot in slots {
            state.usage[slot.cloud] = state.usage[slot.cloud] + slot.count * unit
            members.insert(service, into: slot.cloud)
        }
        state.replicas[service] = slots
    }

    @discardableResult
    mutating func unplace(_ service: Int) -> [Slot] {
        let slots = state.replicas[service]
        let unit = problem.services[service].perReplica
        for slot in slots {
            state.usage[slot.cloud] = state.usage[slot.cloud] - slot.count * unit
            members.remove(service, from: slot.cloud)
        }
        state.replicas[service] = []
        return slots
    }

    mutating func placeDatabase(_ database: Int, _ cloud: Int) {
        state.usage[cloud] = state.usage[cloud] + problem.databases[database].demand
        state.primary[database] = cloud
        members.insert(problem.services.count + database, into: cloud)
    }

    @discardableResult
    mutating func unplaceDatabase(_ database: Int) -> Int {
        let cloud = state.primary[database]
        if cloud >= 0 {
            state.usage[cloud] = state.usage[cloud] - problem.databases[database].demand
            members.remove(problem.services.count + database, from: cloud)
        }
        state.primary[database] = -1
        return cloud
    }

    /// Replaces the whole placement, such as the best one seen.
    mutating func adopt(_ placement: PlacementState) {
        state = placement
        rebuildMembers()
    }

    private mutating func rebuildMembers() {
        var rebuilt = CloudMembers(clouds: problem.clouds.count)
        for (service, slots) in state.replicas.enumerated() {
            for slot in slots { rebuilt.insert(service, into: slot.cloud) }
        }
        for (database, cloud) in state.primary.enumerated() where cloud >= 0 {
            rebuilt.insert(problem.services.count + database, into: cloud)
        }
        members = rebuilt
    }

    /// Places one cell as cheaply as the capacity left allows; false when it does not fit at all.
    mutating func insert(_ item: Item, prices: Prices? = nil) -> Bool {
        switch item {
        case .service(let service):
            guard let slots = bestAllocation(service, prices: prices) else { return false }
            place(service, slots)
        case .database(let database):
            guard let cloud = bestPrimary(database, prices: prices) else { return false }
            placeDatabase(database, cloud)
        }
        return true
    }

    // MARK: Construction

    /// Databases first (large ones first), then services with the fewest clouds to choose from.
    func initialOrder() -> [Item] {
        let databases = problem.databases.indices.sorted {
            (-problem.databases[$0].demand.cpu, -problem.databases[$0].demand.memory, $0)
                < (-problem.databases[$1].demand.cpu, -problem.databases[$1].demand.memory, $1)
        }
        let services = problem.services.indices.sorted {
            let left = problem.services[$0], right = problem.services[$1]
            return (left.allowed.count, -Double(left.replicas) * left.perReplica.cpu, $0)
                < (right.allowed.count, -Double(right.replicas) * right.perReplica.cpu, $1)
        }
        return databases.map(Item.database) + services.map(Item.service)
    }

    /// Places every cell; the cells that did not fit go first in the next round. Returns the cells that still
    /// do not fit after `rounds` rounds (empty on success).
    mutating func construct(order start: [Item], prices: Prices?, rounds: Int) -> [Item] {
        var order = start
        var failed: [Item] = []
        for _ in 0..<rounds {
            reset()
            failed = []
            for item in order where !insert(item, prices: prices) {
                failed.append(item)
            }
            steps += order.count
            guard !failed.isEmpty else { return [] }
            let failing = Set(failed)
            order = failed + order.filter { !failing.contains($0) }
        }
        return failed
    }

    mutating func reset() {
        adopt(PlacementState(problem: problem))
    }

    /// Rebuilds usage from the placement, so rounding from many moves never accumulates.
    mutating func recountUsage() {
        var usage = [ResourceVector](repeating: .zero, count: problem.clouds.count)
        for (service, slots) in state.replicas.enumerated() {
            for slot in slots { usage[slot.cloud] = usage[slot.cloud] + slot.count * problem.services[service].perReplica }
        }
        for (database, cloud) in state.primary.enumerated() where cloud >= 0 {
            usage[cloud] = usage[cloud] + problem.databases[database].demand
        }
        state.usage = usage
    }

    // MARK: Local search

    /// Descends to a local optimum, then anneals with ruin-and-recreate until the budget is spent, and
    /// returns to the best placement seen.
    mutating func improve() {
        descend()
        var best = state
        var bestCost = totalCost
        var current = bestCost
        let cells = max(1, problem.services.count + problem.databases.count)
        // Temperatures in money: a worse move of about a few cells' average cost is accepted now and then at first.
        let start = 0.05 * bestCost / Double(cells)
        let end = start / 1000
        let annealBudget = budget - steps
        let annealStart = steps
        while steps < budget {
            let progress = Double(steps - annealStart) / Double(max(1, annealBudget))
            let temperature = start * pow(end / start, progress)
            guard let delta = ruinAndRecreate(temperature: temperature) else { continue }
            current += delta
            if current < bestCost - Self.tolerance(bestCost) {
                best = state
                bestCost = current
            }
        }
        adopt(best)
        recountUsage()
        descend()
    }

    /// Re-places services and moves primaries until a whole round finds nothing cheaper.
    mutating func descend() {
        while steps < budget {
            let before = totalCost
            sweepServices()
            relocateDatabases()
            recountUsage()
            if totalCost >= before - Self.tolerance(before) { break }
        }
    }

    static func tolerance(_ cost: Double) -> Double { max(1e-9, abs(cost) * 1e-12) }

    /// Re-places every service cell in turn at its best given everything else.
    mutating func sweepServices() {
        for service in problem.services.indices where steps < budget {
            let before = serviceCost(service)
            let old = unplace(service)
            if let slots = bestAllocation(service), slots != old {
                place(service, slots)
                if serviceCost(service) > before - Self.tolerance(before) {
                    unplace(service)
                    place(service, old)
                }
            } else {
                place(service, old)
            }
            steps += 1
        }
    }

    /// Tries every other primary for each database, re-placing the services that talk to it.
    mutating func relocateDatabases() {
        for database in problem.databases.indices where steps < budget {
            let cell = problem.databases[database]
            let current = state.primary[database]
            guard current >= 0 else { continue }
            let connected = Array(Set(cell.edges.map(\.cell))).sorted()
            // Moving can save at most the egress paid today, so a primary costlier by more cannot win.
            let egressToday = connected.reduce(0.0) { $0 + serviceCost($1) } - connected.reduce(0.0) { total, service in
                total + state.replicas[service].reduce(0.0) { $0 + Double($1.count) * problem.services[service].replicaCost[$1.cloud] }
            }
            let alternatives = cell.allowedPrimaries.filter {
                $0 != current && cell.totalCost(primary: $0) < cell.totalCost(primary: current) + egressToday + 1e-9
            }
            for cloud in alternatives where steps < budget {
                let before = localCost(services: connected, databases: [database])
                let snapshot = remove(services: connected, databases: [database])
                let free = problem.clouds[cloud].capacity - state.usage[cloud]
                var placed = cell.demand.fits(within: free)
                if placed {
                    placeDatabase(database, cloud)
                    for service in connected where placed {
                        placed = insert(.service(service))
                    }
                }
                steps += 1 + connected.count
                if placed, localCost(services: connected, databases: [database]) < before - Self.tolerance(before) { continue }
                restore(snapshot)
            }
        }
    }

    /// Removes a random group of cells from one or two clouds and puts them back, biggest first, each at its
    /// cheapest with the room left. Keeps the result when it is cheaper, or with probability exp(-delta/temperature)
    /// when it is dearer; returns the change in cost, or nil when the group was put back as it was.
    mutating func ruinAndRecreate(temperature: Double) -> Double? {
        let busy = problem.clouds.indices.filter { !members.members(of: $0).isEmpty }
        guard let first = busy.randomElement(using: &random) else {
            steps = budget
            return nil
        }
        var pool = members.members(of: first)
        if Bool.random(using: &random), let second = busy.randomElement(using: &random), second != first {
            pool += members.members(of: second).filter { !pool.contains($0) }
        }
        pool.sort()
        pool.shuffle(using: &random)
        let size = Int.random(in: 1...min(Self.maxRuin, pool.count), using: &random)
        var services: [Int] = []
        var databases: [Int] = []
        for item in pool.prefix(size) {
            if item < problem.services.count { services.append(item) } else { databases.append(item - problem.services.count) }
        }
        steps += size
        var affected = services
        for database in databases { affected += problem.databases[database].edges.map(\.cell) }
        affected = Array(Set(affected)).sorted()
        let before = localCost(services: affected, databases: databases)
        let snapshot = remove(services: services, databases: databases)
        let ok = reinsertByRegret(services: services, databases: databases)
        if ok {
            let delta = localCost(services: affected, databases: databases) - before
            if delta < -Self.tolerance(before) || (temperature > 0 && Double.random(in: 0..<1, using: &random) < exp(-delta / temperature)) {
                return delta
            }
        }
        restore(snapshot)
        return nil
    }

    static let maxRuin = 24

    /// Puts cells back the one that would lose most by waiting first: the one whose best choice beats its
    /// second best by the widest margin in the room just freed. So the cell with no good alternative gets the
    /// cheap capacity, not the one that happened to come first.
    mutating func reinsertByRegret(services: [Int], databases: [Int]) -> Bool {
        let pending: [Item] = databases.map(Item.database) + services.map(Item.service)
        let regrets = pending.map(regret)
        let order = pending.indices.sorted { (regrets[$1], $0) < (regrets[$0], $1) }
        for index in order where !insert(pending[index]) { return false }
        return true
    }

    /// How much a cell loses if its cheapest option is taken: infinite when it has only one option left.
    func regret(_ item: Item) -> Double {
        var best = Double.infinity
        var second = Double.infinity
        var weight = 1.0
        switch item {
        case .database(let database):
            let cell = problem.databases[database]
            for cloud in cell.allowedPrimaries where cell.demand.fits(within: problem.clouds[cloud].capacity - state.usage[cloud]) {
                let cost = cell.totalCost(primary: cloud)
                if cost < best { (best, second) = (cost, best) } else if cost < second { second = cost }
            }
        case .service(let service):
            let cell = problem.services[service]
            var bestLimit = 0
            for cloud in cell.allowed {
                let limit = (problem.clouds[cloud].capacity - state.usage[cloud]).copies(of: cell.perReplica, limit: cell.maxPerCloud)
                guard limit > 0 else { continue }
                let cost = cell.replicaCost[cloud]
                if cost < best {
                    (best, second) = (cost, best)
                    bestLimit = limit
                } else if cost < second {
                    second = cost
                }
            }
            weight = Double(min(bestLimit, cell.replicas - cell.minClouds + 1))
        }
        guard best.isFinite else { return .infinity }
        return second.isFinite ? (second - best) * weight : .greatestFiniteMagnitude
    }

    func localCost(services: [Int], databases: [Int]) -> Double {
        services.reduce(0) { $0 + serviceCost($1) } + databases.reduce(0) { $0 + databaseCost($1) }
    }

    struct Snapshot {
        var services: [(Int, [Slot])]
        var databases: [(Int, Int)]
    }

    mutating func remove(services: [Int], databases: [Int]) -> Snapshot {
        Snapshot(services: services.map { ($0, unplace($0)) }, databases: databases.map { ($0, unplaceDatabase($0)) })
    }

    mutating func restore(_ snapshot: Snapshot) {
        for (service, _) in snapshot.services { unplace(service) }
        for (database, _) in snapshot.databases { unplaceDatabase(database) }
        for (database, cloud) in snapshot.databases where cloud >= 0 { placeDatabase(database, cloud) }
        for (service, slots) in snapshot.services { place(service, slots) }
    }
}
