/// Capacity priced instead of enforced, egress kept: each database takes the primary that is cheapest at the
/// prices given where its services' replicas were, each service its cheapest replicas at the prices given next to
/// where its databases are, and the prices follow subgradient steps towards what overfills.
///
/// Which primary each database takes, counted over the later iterations, estimates the fractional choice of the
/// LP relaxation. Rounded, that is a far better start than any greedy: a greedy cannot see that a cheap, roomy
/// cloud is worth more to a memory-heavy database than to the CPU-heavy services that would fill it first.
/// Its prices are where the lower bound (`LagrangianBound`) starts.
struct Relaxation {
    let problem: PlanningProblem
    let clouds: Int
    private let capacity: [ResourceVector]
    private let egress: [Double]
    // Services, flat: shape, spread, edges to databases.
    private var replicas: [Int] = []
    private var unit: [ResourceVector] = []
    private var limit: [Int] = []
    private var minClouds: [Int] = []
    private var edgeStart: [Int] = [0]
    private var edgeDatabase: [Int] = []
    private var edgeTraffic: [Double] = []
    // Services of one shape rank clouds alike, so each shape's clouds are sorted by price once an iteration. The
    // services of one shape and one set of allowed clouds (a group) share their cheapest clouds too: each group
    // reads as many from its shape's order as any member can need, and every member starts from those.
    private var shapeUnit: [ResourceVector] = []
    private var shapeBase: [Double] = []
    private var shapeOrder: [Int] = []
    private let pricedClouds: [Int]
    private var groupOf: [Int] = []
    private var groupShape: [Int] = []
    private var groupAllowed: [Bool] = []
    private var groupDepth: [Int] = []
    private var groupStart: [Int] = [0]
    private var groupEnd: [Int] = []
    private var groupCloud: [Int] = []
    private var groupCost: [Double] = []
    // Databases, flat: primaries with their costs, edges to services.
    private var demand: [ResourceVector] = []
    private var primaryStart: [Int] = [0]
    private var primaryCloud: [Int] = []
    private var primaryCost: [Double] = []
    private var linkStart: [Int] = [0]
    private var linkService: [Int] = []
    private var linkTraffic: [Double] = []
    // Each service's replicas in the last iteration: (cloud, count) pairs from `slotStart`, `slotUsed` of them.
    private var slotStart: [Int] = [0]
    private var slotCloud: [Int] = []
    private var slotCount: [Int] = []
    private var slotUsed: [Int] = []
    // Per cloud, one service's credit next to its databases, and the clouds credited.
    private var credit: [Double] = []
    private var credited: [Int] = []
    // Scratch for the cheapest clouds of one service.
    private var candidateCost: [Double] = []
    private var candidateCloud: [Int] = []
    private var candidateCount: [Int] = []

    /// What the iterations found: which primaries were chosen how often, and the prices of the best iteration.
    struct Guide {
        var frequency: [Double]
        var prices: [ResourceVector]
    }

    init(_ problem: PlanningProblem) {
        self.problem = problem
        clouds = problem.clouds.count
        capacity = problem.clouds.map(\.capacity)
        egress = problem.clouds.map(\.egressGiB)
        pricedClouds = problem.clouds.indices.filter { problem.clouds[$0].vcpuMonth != nil && problem.clouds[$0].memoryGiBMonth != nil }
        var shapes: [ResourceVector: Int] = [:]
        var groups: [GroupKey: Int] = [:]
        for cell in problem.services {
            replicas.append(cell.replicas)
            unit.append(cell.perReplica)
            limit.append(max(1, cell.maxPerCloud))
            minClouds.append(cell.minClouds)
            for edge in cell.edges {
                edgeDatabase.append(edge.cell)
                edgeTraffic.append(edge.trafficGiBMonth)
            }
            edgeStart.append(edgeDatabase.count)
            let shape = shapes[cell.perReplica] ?? shapeUnit.count
            if shape == shapeUnit.count {
                shapes[cell.perReplica] = shape
                shapeUnit.append(cell.perReplica)
            }
            let key = GroupKey(shape: shape, allowed: cell.allowed)
            let group = groups[key] ?? groupShape.count
            if group == groupShape.count {
                groups[key] = group
                groupShape.append(shape)
                groupDepth.append(0)
                var mask = [Bool](repeating: false, count: clouds)
                for cloud in cell.allowed { mask[cloud] = true }
                groupAllowed.append(contentsOf: mask)
            }
            groupOf.append(group)
            // Its needed clouds, and as many more as it has databases whose credit may take some of them out.
            let needed = max(cell.minClouds, (cell.replicas + max(1, cell.maxPerCloud) - 1) / max(1, cell.maxPerCloud))
            groupDepth[group] = max(groupDepth[group], min(cell.allowed.count, needed + cell.edges.count))
            let width = min(cell.replicas, max(1, cell.allowed.count))
            slotCloud.append(contentsOf: repeatElement(-1, count: width))
            slotCount.append(contentsOf: repeatElement(0, count: width))
            slotStart.append(slotCloud.count)
        }
        slotUsed = Array(repeating: 0, count: problem.services.count)
        credit = Array(repeating: 0, count: clouds)
        // The same product as a cell's replicaCost, so both sort and sum alike.
        shapeBase = Array(repeating: .infinity, count: shapeUnit.count * clouds)
        for (shape, perReplica) in shapeUnit.enumerated() {
            for cloud in pricedClouds {
                guard let vcpu = problem.clouds[cloud].vcpuMonth, let memory = problem.clouds[cloud].memoryGiBMonth else { continue }
                shapeBase[shape * clouds + cloud] = perReplica.cpu * vcpu + perReplica.memory * memory
            }
        }
        shapeOrder = Array(repeating: 0, count: shapeUnit.count * pricedClouds.count)
        for depth in groupDepth { groupStart.append(groupStart[groupStart.count - 1] + depth) }
        groupEnd = Array(groupStart.dropLast())
        groupCloud = Array(repeating: 0, count: groupStart[groupStart.count - 1])
        groupCost = Array(repeating: 0, count: groupCloud.count)
        for cell in problem.databases {
            demand.append(cell.demand)
            for cloud in cell.allowedPrimaries {
                primaryCloud.append(cloud)
                primaryCost.append(cell.totalCost(primary: cloud))
            }
            primaryStart.append(primaryCloud.count)
            for edge in cell.edges {
                linkService.append(edge.cell)
                linkTraffic.append(edge.trafficGiBMonth)
            }
            linkStart.append(linkService.count)
        }
    }

    // MARK: The coupled relaxation

    /// Runs `iterations` price updates with Polyak steps towards `upperBound`, a cost some placement reaches; the
    /// step halves after `patience` iterations without a better value. Primaries are counted from a third of the way.
    mutating func guide(upperBound: Double, iterations: Int, patience: Int = 30) -> Guide {
        let databases = problem.databases.count
        var prices = [ResourceVector](repeating: .zero, count: clouds)
        var progress = Progress(bestPrices: prices, patience: patience)
        var choice = [Int](repeating: -1, count: databases)
        var frequency = [Double](repeating: 0, count: databases * clouds)
        var usage = [ResourceVector](repeating: .zero, count: clouds)
        // Per cloud: the replicas of one database's services there, weighted by traffic.
        var inside = [Double](repeating: 0, count: clouds)
        for iteration in 0..<iterations {
            for cloud in 0..<clouds { usage[cloud] = .zero }
            var value = 0.0
            for database in 0..<databases {
                // Egress at each primary given where its services' replicas were in the last iteration.
                var traffic = 0.0
                for link in linkStart[database]..<linkStart[database + 1] {
                    let service = linkService[link]
                    traffic += linkTraffic[link]
                    let share = linkTraffic[link] / Double(replicas[service])
                    for slot in slotStart[service]..<(slotStart[service] + slotUsed[service]) {
                        inside[slotCloud[slot]] += share * Double(slotCount[slot])
                    }
                }
                var bestCloud = -1
                var bestCost = Double.infinity
                var bestOwn = 0.0
                for option in primaryStart[database]..<primaryStart[database + 1] {
                    let cloud = primaryCloud[option]
                    let own = primaryCost[option] + Self.price(prices[cloud], demand[database])
                    let cost = own + egress[cloud] * (traffic - inside[cloud])
                    if cost < bestCost {
                        (bestCost, bestCloud, bestOwn) = (cost, cloud, own)
                    }
                }
                for link in linkStart[database]..<linkStart[database + 1] {
                    let service = linkService[link]
                    for slot in slotStart[service]..<(slotStart[service] + slotUsed[service]) { inside[slotCloud[slot]] = 0 }
                }
                choice[database] = bestCloud
                guard bestCloud >= 0 else { continue }
                value += bestOwn
                usage[bestCloud] = usage[bestCloud] + demand[database]
            }
            placeServices(next: choice, prices: prices, usage: &usage, value: &value)
            value -= capacityValue(prices)
            progress.record(value, prices)
            if iteration >= iterations / 3 {
                for database in 0..<databases where choice[database] >= 0 { frequency[database * clouds + choice[database]] += 1 }
            }
            step(&prices, usage: usage, value: value, upperBound: upperBound, scale: progress.scale)
        }
        return Guide(frequency: frequency, prices: progress.bestPrices)
    }

    /// Every service at its cheapest at `prices`, next to the primaries in `choice`: adds their replicas to `usage`
    /// and their cost to `value`, the egress paid in full less a credit per replica next to each database.
    private mutating func placeServices(next choice: [Int], prices: [ResourceVector], usage: inout [ResourceVector], value: inout Double) {
        sortShapes(prices)
        for service in 0..<problem.services.count {
            credited.removeAll(keepingCapacity: true)
            for edge in edgeStart[service]..<edgeStart[service + 1] {
                let primary = choice[edgeDatabase[edge]]
                guard primary >= 0 else { continue }
                let full = edgeTraffic[edge] * egress[primary]
                value += full
                if !credited.contains(primary) { credited.append(primary) }
                credit[primary] += full / Double(replicas[service])
            }
            value += place(service, prices, credit, credited)
            for cloud in credited { credit[cloud] = 0 }
            for slot in slotStart[service]..<(slotStart[service] + slotUsed[service]) {
                usage[slotCloud[slot]] = usage[slotCloud[slot]] + slotCount[slot] * unit[service]
            }
        }
    }

    // MARK: Price steps

    /// The best value and prices seen so far, and the steps' scale, which halves after `patience` iterations
    /// without a better value.
    private struct Progress {
        var best = -Double.infinity
        var bestPrices: [ResourceVector]
        var scale = 2.0
        var since = 0
        let patience: Int

        init(bestPrices: [ResourceVector], patience: Int) {
            self.bestPrices = bestPrices
            self.patience = patience
        }

        mutating func record(_ value: Double, _ prices: [ResourceVector]) {
            if value > best {
                (best, bestPrices, since) = (value, prices, 0)
            } else {
                since += 1
                if since >= patience { (scale, since) = (scale / 2, 0) }
            }
        }
    }

    /// A subgradient step on each cloud's prices, in shares of its capacity, so storage counted in thousands of
    /// GiB does not drown vCPU counted in tens. Polyak's length: the gap to `upperBound` over the squared norm.
    func step(_ prices: inout [ResourceVector], usage: [ResourceVector], value: Double, upperBound: Double, scale: Double) {
        var gradient = [ResourceVector](repeating: .zero, count: clouds)
        var norm = 0.0
        for cloud in 0..<clouds {
            let have = capacity[cloud], used = usage[cloud], price = prices[cloud]
            var g = ResourceVector(cpu: Self.share(used.cpu, of: have.cpu), memory: Self.share(used.memory, of: have.memory), storage: Self.share(used.storage, of: have.storage))
            if price.cpu <= 0, g.cpu < 0 { g.cpu = 0 }
            if price.memory <= 0, g.memory < 0 { g.memory = 0 }
            if price.storage <= 0, g.storage < 0 { g.storage = 0 }
            gradient[cloud] = g
            norm += g.cpu * g.cpu + g.memory * g.memory + g.storage * g.storage
        }
        guard norm > 0, upperBound.isFinite, upperBound > value else { return }
        let length = scale * (upperBound - value) / norm
        for cloud in 0..<clouds {
            let have = capacity[cloud], price = prices[cloud], g = gradient[cloud]
            prices[cloud] = ResourceVector(
                cpu: max(0, price.cpu + length * g.cpu / max(have.cpu, 1)),
                memory: max(0, price.memory + length * g.memory / max(have.memory, 1)),
                storage: max(0, price.storage + length * g.storage / max(have.storage, 1))
            )
        }
    }

    private func capacityValue(_ prices: [ResourceVector]) -> Double {
        (0..<clouds).reduce(0.0) { $0 + Self.price(prices[$1], capacity[$1]) }
    }

    private static func price(_ price: ResourceVector, _ amount: ResourceVector) -> Double {
        price.cpu * amount.cpu + price.memory * amount.memory + price.storage * amount.storage
    }

    /// Use beyond capacity as a share of it: 0.1 is 10% over, -0.5 half empty.
    private static func share(_ used: Double, of capacity: Double) -> Double {
        capacity > 0 ? used / capacity - 1 : (used > 0 ? 1 : 0)
    }

    /// Each shape's priced clouds by replica price at `prices`, cheapest first, ties to the lower index; then each
    /// group's first allowed clouds in that order, with their prices.
    private mutating func sortShapes(_ prices: [ResourceVector]) {
        let width = pricedClouds.count
        var keyed: [(cost: Double, cloud: Int)] = []
        keyed.reserveCapacity(width)
        for (shape, perReplica) in shapeUnit.enumerated() {
            keyed.removeAll(keepingCapacity: true)
            for cloud in pricedClouds {
                keyed.append((shapeBase[shape * clouds + cloud] + Self.price(prices[cloud], perReplica), cloud))
            }
            keyed.sort { ($0.cost, $0.cloud) < ($1.cost, $1.cloud) }
            for (rank, entry) in keyed.enumerated() { shapeOrder[shape * width + rank] = entry.cloud }
        }
        for group in groupShape.indices {
            let shape = groupShape[group]
            var at = groupStart[group]
            for rank in 0..<width where at < groupStart[group + 1] {
                let cloud = shapeOrder[shape * width + rank]
                guard groupAllowed[group * clouds + cloud] else { continue }
                groupCloud[at] = cloud
                groupCost[at] = shapeBase[shape * clouds + cloud] + Self.price(prices[cloud], shapeUnit[shape])
                at += 1
            }
            groupEnd[group] = at
        }
    }

    /// Places `service` as `Optimizer.fill` would with every cloud free up to maxPerCloud: its cheapest clouds at
    /// `prices` less `credit`, one replica in each of the first minClouds, then each topped up in price order.
    /// Records the slots; returns their cost.
    private mutating func place(_ service: Int, _ prices: [ResourceVector], _ credit: [Double], _ credited: [Int]) -> Double {
        let group = groupOf[service], shape = groupShape[group]
        let needed = max(minClouds[service], (replicas[service] + limit[service] - 1) / limit[service])
        candidateCost.removeAll(keepingCapacity: true)
        candidateCloud.removeAll(keepingCapacity: true)
        // The group's first clouds, the credited ones aside, are the cheapest of the rest.
        for at in groupStart[group]..<groupEnd[group] where candidateCloud.count < needed && !credited.contains(groupCloud[at]) {
            candidateCost.append(groupCost[at])
            candidateCloud.append(groupCloud[at])
        }
        for cloud in credited where groupAllowed[group * clouds + cloud] {
            let cost = shapeBase[shape * clouds + cloud] + Self.price(prices[cloud], unit[service]) - credit[cloud]
            if candidateCloud.count == needed {
                guard (cost, cloud) < (candidateCost[needed - 1], candidateCloud[needed - 1]) else { continue }
                candidateCost.removeLast()
                candidateCloud.removeLast()
            }
            var at = candidateCloud.count
            while at > 0, (cost, cloud) < (candidateCost[at - 1], candidateCloud[at - 1]) { at -= 1 }
            candidateCost.insert(cost, at: at)
            candidateCloud.insert(cloud, at: at)
        }
        let taken = candidateCloud.count
        candidateCount.removeAll(keepingCapacity: true)
        candidateCount.append(contentsOf: repeatElement(0, count: taken))
        var left = replicas[service]
        for index in 0..<min(minClouds[service], taken) where left > 0 {
            candidateCount[index] = 1
            left -= 1
        }
        for index in 0..<taken where left > 0 {
            let added = min(limit[service] - candidateCount[index], left)
            candidateCount[index] += added
            left -= added
        }
        var cost = 0.0
        var used = 0
        let base = slotStart[service], room = slotStart[service + 1] - base
        for index in 0..<taken where candidateCount[index] > 0 && used < room {
            slotCloud[base + used] = candidateCloud[index]
            slotCount[base + used] = candidateCount[index]
            cost += Double(candidateCount[index]) * candidateCost[index]
            used += 1
        }
        slotUsed[service] = used
        return cost
    }
}

extension Relaxation {
    /// Services with one shape and one set of allowed clouds rank those clouds alike.
    private struct GroupKey: Hashable {
        var shape: Int
        var allowed: [Int]
    }
}

extension Relaxation.Guide {
    /// Primaries by how often each was chosen: the most settled databases first, each at its most frequent
    /// cloud where the primaries placed so far leave room (services can move, primaries cannot), ties to the
    /// cheaper cloud; -1 for a database that fits nowhere.
    func primaries(_ problem: PlanningProblem) -> [Int] {
        let clouds = problem.clouds.count
        var primary = [Int](repeating: -1, count: problem.databases.count)
        var load = [ResourceVector](repeating: .zero, count: clouds)
        let settled = problem.databases.indices.map { database in
            problem.databases[database].allowedPrimaries.map { frequency[database * clouds + $0] }.max() ?? 0
        }
        for database in problem.databases.indices.sorted(by: { (-settled[$0], $0) < (-settled[$1], $1) }) {
            let cell = problem.databases[database]
            let key = { (cloud: Int) in (-frequency[database * clouds + cloud], cell.totalCost(primary: cloud), cloud) }
            for cloud in cell.allowedPrimaries.sorted(by: { key($0) < key($1) })
            where (load[cloud] + cell.demand).fits(within: problem.clouds[cloud].capacity) {
                primary[database] = cloud
                load[cloud] = load[cloud] + cell.demand
                break
            }
        }
        return primary
    }

    /// The primaries rounded, then each service at its cheapest in the room left, in `order`, or where no room is
    /// left at its cheapest regardless: the annealing that follows clears the overfill. Nil when the primaries
    /// alone do not fit.
    func start(_ problem: PlanningProblem, order: [Optimizer.Item]) -> PlacementState? {
        let primaries = primaries(problem)
        guard !primaries.contains(-1) else { return nil }
        var builder = Optimizer(problem: problem, budget: 0, seed: 0)
        builder.reset()
        for (database, cloud) in primaries.enumerated() { builder.placeDatabase(database, cloud) }
        var start = builder.state
        for case .service(let service) in order {
            if builder.insert(.service(service)) {
                start.replicas[service] = builder.state.replicas[service]
                continue
            }
            start.replicas[service] = Optimizer.cheapestIgnoringRoom(problem.services[service]) ?? []
        }
        return start
    }
}
