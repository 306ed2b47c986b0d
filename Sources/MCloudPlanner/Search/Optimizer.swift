import Foundation
import MCloudCore

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
    var members: CloudMembers
    var steps = 0
    let budget: Int
    var random: SplitMix64
    /// Service cells already taken up by the move in progress.
    var touched: Marker
    /// Cells already in the ruin pool, numbered as in `members`.
    var pooled: Marker
    /// Each service's allowed clouds by the price of a replica, cheapest first.
    let cheapestClouds: [[Int]]
    /// Each database's cheapest primaries on its own cost, cheapest first: where relocations aim.
    var cheapestPrimaries: [[Int]]

    init(problem: PlanningProblem, budget: Int, seed: UInt64) {
        self.problem = problem
        self.state = PlacementState(problem: problem)
        self.members = CloudMembers(clouds: problem.clouds.count)
        self.budget = budget
        self.random = SplitMix64(seed: seed)
        self.touched = Marker(count: problem.services.count)
        self.pooled = Marker(count: problem.services.count + problem.databases.count)
        self.cheapestClouds = problem.services.map { cell in
            cell.allowed.sorted { (cell.replicaCost[$0], $0) < (cell.replicaCost[$1], $1) }
        }
        self.cheapestPrimaries = problem.databases.map { cell in
            Array(cell.allowedPrimaries.sorted { (cell.totalCost(primary: $0), $0) < (cell.totalCost(primary: $1), $1) }.prefix(Self.relocationTargets))
        }
    }

    func free(_ cloud: Int) -> ResourceVector {
        problem.clouds[cloud].capacity - state.usage[cloud]
    }

    /// Adds to each database's relocation targets the primaries the relaxation chose for it (`frequency`, a row
    /// of clouds per database) that are not among them yet: where the LP would put it, not only where it is cheapest
    /// alone. On the largest inputs those are often outside the cheapest few.
    mutating func aimRelocations(frequency: [Double]) {
        let clouds = problem.clouds.count
        for database in problem.databases.indices {
            let known = Set(cheapestPrimaries[database])
            cheapestPrimaries[database] += problem.databases[database].allowedPrimaries
                .filter { frequency[database * clouds + $0] > 0 && !known.contains($0) }
                .sorted { (-frequency[database * clouds + $0], $0) < (-frequency[database * clouds + $1], $1) }
        }
    }

    /// The annealing rule: always downhill, uphill with probability exp(-delta/temperature).
    mutating func accepts(_ delta: Double, scale: Double, temperature: Double) -> Bool {
        delta < -Self.tolerance(scale) || (temperature > 0 && Double.random(in: 0..<1, using: &random) < exp(-delta / temperature))
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
    func bestAllocation(_ service: Int) -> [Slot]? {
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
            candidates.append(Candidate(cost: cost, cloud: cloud, limit: limit))
        }
        return Self.fill(candidates, replicas: cell.replicas, minClouds: cell.minClouds)
    }

    /// The cheapest replica counts for a service cell as if every cloud it may use were empty: where a start cannot
    /// find room, the layout the annealing then clears the overfill from. Nil when spread cannot be met at all.
    static func cheapestIgnoringRoom(_ cell: PlanningProblem.ServiceCell) -> [Slot]? {
        let candidates = cell.allowed.map { Candidate(cost: cell.replicaCost[$0], cloud: $0, limit: cell.maxPerCloud) }
        return fill(candidates, replicas: cell.replicas, minClouds: cell.minClouds)
    }

    struct Candidate {
        var cost: Double
        var cloud: Int
        var limit: Int
    }

    /// Linear costs and "at least minClouds clouds": one replica in each of the minClouds cheapest clouds, then
    /// the rest cheapest first. An exchange argument shows nothing cheaper meets the rules. Clouds are taken in
    /// price order by repeated selection rather than a full sort: a cell uses a handful of the clouds it may use.
    static func fill(_ candidates: [Candidate], replicas: Int, minClouds: Int) -> [Slot]? {
        guard candidates.count >= minClouds, minClouds <= replicas,
              candidates.reduce(0, { $0 + $1.limit }) >= replicas else { return nil }
        var taken: [Int] = []
        var counts: [Int] = []
        var left = replicas
        while left > 0 || taken.count < minClouds {
            var next = -1
            for index in candidates.indices where !taken.contains(index) {
                if next < 0 || (candidates[index].cost, candidates[index].cloud) < (candidates[next].cost, candidates[next].cloud) {
                    next = index
                }
            }
            guard next >= 0 else { return nil }
            taken.append(next)
            counts.append(0)
            if taken.count <= minClouds {
                counts[taken.count - 1] = 1
                left -= 1
                if taken.count < minClouds { continue }
            }
            // With minClouds clouds open, top them up in price order, then fill each new one as far as it goes.
            for position in counts.indices where left > 0 {
                let added = min(candidates[taken[position]].limit - counts[position], left)
                counts[position] += added
                left -= added
            }
        }
        return zip(taken, counts).filter { $0.1 > 0 }.map { Slot(cloud: candidates[$0.0].cloud, count: $0.1) }
            .sorted { $0.cloud < $1.cloud }
    }

    /// The cheapest primary with room, counting the egress of service replicas already placed elsewhere.
    func bestPrimary(_ database: Int) -> Int? {
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
    mutating func insert(_ item: Item) -> Bool {
        switch item {
        case .service(let service):
            guard let slots = bestAllocation(service) else { return false }
            place(service, slots)
        case .database(let database):
            guard let cloud = bestPrimary(database) else { return false }
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
    mutating func construct(order start: [Item], rounds: Int) -> [Item] {
        var order = start
        var failed: [Item] = []
        for _ in 0..<rounds {
            reset()
            failed = []
            for item in order where !insert(item) {
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

    /// Anneals from the current placement, which has already descended, on nine tenths of the budget, then
    /// returns to the best placement seen and descends from it on the rest.
    mutating func improve() {
        let polish = budget / 10
        var best = state
        var bestCost = totalCost
        var current = bestCost
        let cells = max(1, problem.services.count + problem.databases.count)
        // Temperatures in money: a worse move of about a few cells' average cost is accepted now and then at first.
        let start = 0.5 * bestCost / Double(cells)
        let end = start / 1000
        let annealBudget = budget - polish - steps
        let annealStart = steps
        while steps < budget - polish {
            let progress = Double(steps - annealStart) / Double(max(1, annealBudget))
            let temperature = start * pow(end / start, progress)
            let move: Double?
            switch Int.random(in: 0..<3, using: &random) {
            case 0: move = ruinAndRecreate(temperature: temperature)
            case 1: move = randomRelocation(temperature: temperature)
            default: move = randomPull(temperature: temperature)
            }
            guard let delta = move else {
                steps += 1
                continue
            }
            current += delta
            if current < bestCost - Self.tolerance(bestCost) {
                best = state
                bestCost = current
            }
        }
        adopt(best)
        recountUsage()
        pullNextToPrimaries()
        descend()
    }

    /// Once, for every service and each of its databases, pulls the service's replicas next to that primary when
    /// that pays, evicting what loses least there. The annealing tries such pulls at random, a few per service on
    /// the largest inputs; one pass over all of them after it brings the services home to their databases.
    mutating func pullNextToPrimaries() {
        for service in problem.services.indices {
            for edge in problem.services[service].edges {
                _ = pull(service, nextTo: edge.cell, temperature: 0)
            }
        }
    }

    /// Re-places services and moves primaries until a round saves less than a thousandth: the rounds after
    /// that cost as much work as the first and find little that the annealing would not.
    mutating func descend() {
        while steps < budget {
            let before = totalCost
            sweepServices()
            relocateDatabases()
            recountUsage()
            if totalCost >= before - max(Self.tolerance(before), Self.descentStop * abs(before)) { break }
        }
    }

    static let descentStop = 1e-3

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

    /// Tries every other primary for each database that could pay, making room there when it is full.
    mutating func relocateDatabases() {
        for database in problem.databases.indices where steps < budget {
            let cell = problem.databases[database]
            let current = state.primary[database]
            guard current >= 0 else { continue }
            let connected = cell.connectedServices
            // Moving can save at most the egress paid today, so a primary costlier by more cannot win.
            let egressToday = connected.reduce(0.0) { $0 + serviceCost($1) } - connected.reduce(0.0) { total, service in
                total + state.replicas[service].reduce(0.0) { $0 + Double($1.count) * problem.services[service].replicaCost[$1.cloud] }
            }
            // Nor can a primary whose own cost plus the egress no spread can avoid there beats today's.
            let alternatives = cell.allowedPrimaries.filter {
                $0 != current && cell.totalCost(primary: $0) + unavoidableEgress(database, at: $0) < cell.totalCost(primary: current) + egressToday + 1e-9
            }
            for cloud in alternatives where steps < budget && state.primary[database] == current {
                _ = relocate([(database, cloud)], evicting: false, temperature: 0)
            }
        }
    }

    /// The egress a primary in `cloud` pays whatever the services do: the replicas spread keeps out of it.
    func unavoidableEgress(_ database: Int, at cloud: Int) -> Double {
        let egress = problem.clouds[cloud].egressGiB
        return problem.databases[database].edges.reduce(0.0) { total, edge in
            let service = problem.services[edge.cell]
            let inside = service.replicaCost[cloud].isFinite ? min(service.maxPerCloud, service.replicas) : 0
            return total + edge.trafficGiBMonth * egress * Double(service.replicas - inside) / Double(service.replicas)
        }
    }

    /// Removes a random group of cells from one or two clouds and puts them back, biggest first, each at its
    /// cheapest with the room left. Keeps the result when it is cheaper, or with probability exp(-delta/temperature)
    /// when it is dearer; returns the change in cost, or nil when the group was put back as it was.
    mutating func ruinAndRecreate(temperature: Double) -> Double? {
        guard let first = randomBusyCloud() else {
            steps = budget
            return nil
        }
        var pool = members.members(of: first)
        if Bool.random(using: &random), let second = randomBusyCloud(), second != first {
            pooled.clear()
            for item in pool { pooled.insert(item) }
            for item in members.members(of: second) where pooled.insert(item) { pool.append(item) }
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
        touched.clear()
        var affected: [Int] = []
        for service in services where touched.insert(service) { affected.append(service) }
        for database in databases {
            for service in problem.databases[database].connectedServices where touched.insert(service) { affected.append(service) }
        }
        let before = localCost(services: affected, databases: databases)
        let snapshot = remove(services: services, databases: databases)
        let ok = reinsertByRegret(services: services, databases: databases)
        if ok {
            let delta = localCost(services: affected, databases: databases) - before
            if accepts(delta, scale: before, temperature: temperature) { return delta }
        }
        restore(snapshot)
        return nil
    }

    /// A random cloud that holds cells: a random start, then the next one along that is not empty, so no pass
    /// over every cloud is needed to list the busy ones.
    mutating func randomBusyCloud() -> Int? {
        let count = problem.clouds.count
        guard count > 0 else { return nil }
        let start = Int.random(in: 0..<count, using: &random)
        for offset in 0..<count where !members.members(of: (start + offset) % count).isEmpty {
            return (start + offset) % count
        }
        return nil
    }

    static let maxRuin = 24
    static let relocationTargets = 10

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
