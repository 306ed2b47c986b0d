import Foundation
import MCloudCore

/// Annealing of service replicas over clouds that may be overfilled for a while: each unit over a cloud's
/// capacity costs a weight that grows while the cloud stays over and shrinks once it is not, and the floor under
/// the weights rises until, at the end, overfilling never pays. A full cheap cloud then makes room the way a
/// market does, one replica at a time along whichever chain of clouds is cheapest; moves that must keep every
/// cloud within capacity would need the whole chain at once, and with CPU and memory both short they rarely find
/// it. Primaries move only in `refinePrimaries`, each move judged after the services have settled around it.
struct PenaltySearch {
    let problem: PlanningProblem
    private let clouds: Int
    private let services: Int
    /// Replicas of each service in each cloud, a row per service: the egress of a move needs "how many there".
    private var count: [Int32]
    /// The clouds each service uses.
    private var used: [[Int]]
    private(set) var primary: [Int]
    private var usage: [ResourceVector]
    /// What the primaries alone take from each cloud: the services there can leave, the primaries cannot.
    private var databaseLoad: [ResourceVector]
    private var weight: [ResourceVector]
    /// Service cells in each cloud and each one's position in that list, to pick a swap partner at random.
    private var members: [[Int32]]
    private var position: [Int32]
    private(set) var cost: Double
    /// (cloud, resource) pairs over capacity: zero means the placement is feasible.
    private var overloaded = 0
    private var random: SplitMix64
    private(set) var steps = 0
    /// Each service's allowed clouds, cheapest first: half the moves aim at the first few.
    private let targets: [[Int]]
    /// A unit of each resource at the mean price: the weights start there.
    private let unitPrice: ResourceVector
    /// What a replica typically costs: temperatures are set against it.
    private let replicaScale: Double
    // The services' fields the moves read, flat: the cells themselves hold far more than a move needs.
    private let replicaCost: [Double]
    private let unit: [ResourceVector]
    private let maxPerCloud: [Int32]
    private let minClouds: [Int]
    private let edgeStart: [Int]
    private let edgeDatabase: [Int]
    /// Traffic over replicas: the egress one replica saves next to the primary, per unit of egress price.
    private let edgeShare: [Double]
    private let egress: [Double]
    private let capacity: [ResourceVector]
    /// Each cloud's monthly price of a vCPU and of a GiB of memory (infinity where it offers none), and the most egress
    /// one replica of each service saves next to its primaries, per unit of egress price: a replica's move never costs
    /// less than its size at the difference in price less that saving, which the exchange checks before reading the
    /// replica's own rows.
    private let cloudPrice: [ResourceVector]
    private let savingShare: [Double]

    init(problem: PlanningProblem, start: PlacementState, seed: UInt64, targets: [[Int]]) {
        self.problem = problem
        clouds = problem.clouds.count
        services = problem.services.count
        self.targets = targets
        random = SplitMix64(seed: seed)
        replicaCost = problem.services.flatMap(\.replicaCost)
        unit = problem.services.map(\.perReplica)
        maxPerCloud = problem.services.map { Int32(clamping: $0.maxPerCloud) }
        minClouds = problem.services.map(\.minClouds)
        var starts = [0], databases: [Int] = [], shares: [Double] = []
        for cell in problem.services {
            for edge in cell.edges {
                databases.append(edge.cell)
                shares.append(edge.trafficGiBMonth / Double(cell.replicas))
            }
            starts.append(databases.count)
        }
        (edgeStart, edgeDatabase, edgeShare) = (starts, databases, shares)
        egress = problem.clouds.map(\.egressGiB)
        capacity = problem.clouds.map(\.capacity)
        cloudPrice = problem.clouds.map { ResourceVector(cpu: $0.vcpuMonth ?? .infinity, memory: $0.memoryGiBMonth ?? .infinity, storage: 0) }
        savingShare = (0..<problem.services.count).map { shares[starts[$0]..<starts[$0 + 1]].reduce(0, +) }
        count = Array(repeating: 0, count: services * clouds)
        used = Array(repeating: [], count: services)
        primary = start.primary
        usage = Array(repeating: .zero, count: clouds)
        databaseLoad = Array(repeating: .zero, count: clouds)
        members = Array(repeating: [], count: clouds)
        position = Array(repeating: -1, count: services * clouds)
        for (service, slots) in start.replicas.enumerated() {
            for slot in slots {
                count[service * clouds + slot.cloud] = Int32(slot.count)
                used[service].append(slot.cloud)
                usage[slot.cloud] = usage[slot.cloud] + slot.count * problem.services[service].perReplica
                position[service * clouds + slot.cloud] = Int32(members[slot.cloud].count)
                members[slot.cloud].append(Int32(service))
            }
        }
        for (database, cloud) in primary.enumerated() where cloud >= 0 {
            usage[cloud] = usage[cloud] + problem.databases[database].demand
            databaseLoad[cloud] = databaseLoad[cloud] + problem.databases[database].demand
        }
        let priced = problem.clouds.filter { $0.vcpuMonth != nil && $0.memoryGiBMonth != nil }
        let share = 1 / Double(max(1, priced.count))
        unitPrice = ResourceVector(
            cpu: priced.reduce(0) { $0 + ($1.vcpuMonth ?? 0) } * share,
            memory: priced.reduce(0) { $0 + ($1.memoryGiBMonth ?? 0) } * share,
            storage: priced.reduce(0) { $0 + ($1.storageGiBMonth ?? 0) } * share
        )
        let cheapest = problem.services.indices.compactMap { service in targets[service].first.map { problem.services[service].replicaCost[$0] } }
        replicaScale = cheapest.isEmpty ? 1 : max(1e-9, cheapest.reduce(0, +) / Double(cheapest.count))
        weight = Array(repeating: unitPrice, count: clouds)
        cost = 0
        cost = totalCost()
        for cloud in 0..<clouds { overloaded += overCount(cloud, usage[cloud]) }
    }

    var isFeasible: Bool { overloaded == 0 }

    /// The placement in the optimiser's form, each service's slots in cloud order.
    var placement: PlacementState {
        var state = PlacementState(problem: problem)
        state.primary = primary
        for service in 0..<services {
            state.replicas[service] = used[service].sorted().map { Slot(cloud: $0, count: Int(count[service * clouds + $0])) }
        }
        return state
    }

    private func totalCost() -> Double {
        var total = problem.cheapestCDNCost
        for service in 0..<services {
            let cell = problem.services[service]
            for cloud in used[service] { total += Double(count[service * clouds + cloud]) * cell.replicaCost[cloud] }
            let replicas = Double(cell.replicas)
            for edge in cell.edges {
                let cloud = primary[edge.cell]
                total += edge.trafficGiBMonth * problem.clouds[cloud].egressGiB * (replicas - Double(count[service * clouds + cloud])) / replicas
            }
        }
        return primary.enumerated().reduce(total) { $0 + problem.databases[$1.offset].totalCost(primary: $1.element) }
    }

    // MARK: Penalty

    // The helpers every try calls are inlined by force (`@inline(__always)`): called, each got its own copy of the
    // whole search, and those copies showed in the profile (docs/planner.md, Tuning).
    @inline(__always)
    private func penalty(_ cloud: Int, _ use: ResourceVector) -> Double {
        let over = use - capacity[cloud], w = weight[cloud]
        return w.cpu * max(0, over.cpu) + w.memory * max(0, over.memory) + w.storage * max(0, over.storage)
    }

    @inline(__always)
    private func penaltyChange(_ cloud: Int, _ change: ResourceVector) -> Double {
        penalty(cloud, usage[cloud] + change) - penalty(cloud, usage[cloud])
    }

    @inline(__always)
    private func overCount(_ cloud: Int, _ use: ResourceVector) -> Int {
        let over = use - capacity[cloud], e = ResourceVector.epsilon
        return (over.cpu > e ? 1 : 0) + (over.memory > e ? 1 : 0) + (over.storage > e ? 1 : 0)
    }

    private mutating func shift(_ cloud: Int, by change: ResourceVector) {
        let after = usage[cloud] + change
        overloaded += overCount(cloud, after) - overCount(cloud, usage[cloud])
        usage[cloud] = after
    }

    /// Weights up where a cloud is over, down elsewhere, never under `floor`.
    private mutating func adaptWeights(floor: ResourceVector) {
        for cloud in 0..<clouds {
            let over = usage[cloud] - capacity[cloud], e = ResourceVector.epsilon
            let w = weight[cloud]
            weight[cloud] = ResourceVector(
                cpu: over.cpu > e ? w.cpu * 1.1 : max(floor.cpu, w.cpu * 0.98),
                memory: over.memory > e ? w.memory * 1.1 : max(floor.memory, w.memory * 0.98),
                storage: over.storage > e ? w.storage * 1.1 : max(floor.storage, w.storage * 0.98)
            )
        }
    }

    // MARK: Moves

    /// The change in cost when one replica of `service` leaves `from` for `to`, egress included.
    @inline(__always)
    private func replicaChange(_ service: Int, _ from: Int, _ to: Int) -> Double {
        var change = replicaCost[service * clouds + to] - replicaCost[service * clouds + from]
        for edge in edgeStart[service]..<edgeStart[service + 1] {
            let cloud = primary[edgeDatabase[edge]]
            if cloud == from { change += edgeShare[edge] * egress[from] }
            if cloud == to { change -= edgeShare[edge] * egress[to] }
        }
        return change
    }

    /// Whether spread lets one replica of `service` leave `from` for `to`.
    @inline(__always)
    private func mayMove(_ service: Int, _ from: Int, _ to: Int) -> Bool {
        let there = count[service * clouds + from], here = count[service * clouds + to]
        guard from != to, there > 0, here < maxPerCloud[service], replicaCost[service * clouds + to].isFinite else { return false }
        return !(there == 1 && here > 0 && used[service].count <= minClouds[service])
    }

    private mutating func moveReplica(_ service: Int, _ from: Int, _ to: Int) {
        cost += replicaChange(service, from, to)
        count[service * clouds + from] -= 1
        if count[service * clouds + from] == 0 {
            used[service].removeAll { $0 == from }
            let at = Int(position[service * clouds + from])
            position[service * clouds + from] = -1
            let last = members[from].removeLast()
            if at < members[from].count {
                members[from][at] = last
                position[Int(last) * clouds + from] = Int32(at)
            }
        }
        if count[service * clouds + to] == 0 {
            used[service].append(to)
            position[service * clouds + to] = Int32(members[to].count)
            members[to].append(Int32(service))
        }
        count[service * clouds + to] += 1
        shift(from, by: .zero - unit[service])
        shift(to, by: unit[service])
    }

    /// The change in cost when `database` moves its primary to `to`, its services' replicas staying where they are.
    private func primaryChange(_ database: Int, _ to: Int) -> Double {
        let cell = problem.databases[database], from = primary[database]
        var change = cell.totalCost(primary: to) - cell.totalCost(primary: from)
        let egressFrom = problem.clouds[from].egressGiB, egressTo = problem.clouds[to].egressGiB
        for edge in cell.edges {
            let replicas = Double(problem.services[edge.cell].replicas)
            let atFrom = Double(count[edge.cell * clouds + from]), atTo = Double(count[edge.cell * clouds + to])
            change += edge.trafficGiBMonth * (egressTo * (replicas - atTo) - egressFrom * (replicas - atFrom)) / replicas
        }
        return change
    }

    private mutating func movePrimary(_ database: Int, _ to: Int) {
        let from = primary[database], demand = problem.databases[database].demand
        cost += primaryChange(database, to)
        primary[database] = to
        databaseLoad[from] = databaseLoad[from] - demand
        databaseLoad[to] = databaseLoad[to] + demand
        shift(from, by: .zero - demand)
        shift(to, by: demand)
    }

    private mutating func accepts(_ change: Double, _ temperature: Double) -> Bool {
        guard change > 0 else { return true }
        let draw = Double.random(in: 0..<1, using: &random), ratio = change / temperature
        // Past e^-40, below the smallest draw but zero (2^-53), the move is refused without computing exp, which is
        // most uphill tries once the temperature has fallen.
        return ratio < 40 && draw < exp(-ratio)
    }

    /// Half the time one of the service's few cheapest clouds, else any it may use.
    @inline(__always)
    private mutating func randomTarget(_ service: Int) -> Int {
        let options = targets[service]
        let span = Bool.random(using: &random) ? min(options.count, 8) : options.count
        return options[Int.random(in: 0..<span, using: &random)]
    }

    /// One replica of a random service from one of its clouds to another.
    private mutating func tryMove(_ temperature: Double) {
        let service = Int.random(in: 0..<services, using: &random)
        guard let from = used[service].randomElement(using: &random), !targets[service].isEmpty else { return }
        let to = randomTarget(service)
        guard mayMove(service, from, to) else { return }
        let change = replicaChange(service, from, to) + penaltyChange(from, .zero - unit[service]) + penaltyChange(to, unit[service])
        if accepts(change, temperature) { moveReplica(service, from, to) }
    }

    /// One replica of a random service from one of its clouds to another, and one of a service living there back.
    private mutating func trySwap(_ temperature: Double) {
        let first = Int.random(in: 0..<services, using: &random)
        guard let from = used[first].randomElement(using: &random), !targets[first].isEmpty else { return }
        let to = randomTarget(first)
        guard mayMove(first, from, to), let partner = members[to].randomElement(using: &random) else { return }
        let second = Int(partner)
        guard second != first, mayMove(second, to, from) else { return }
        let firstUnit = unit[first], secondUnit = unit[second]
        let change = replicaChange(first, from, to) + replicaChange(second, to, from)
            + penaltyChange(from, secondUnit - firstUnit) + penaltyChange(to, firstUnit - secondUnit)
        if accepts(change, temperature) {
            moveReplica(first, from, to)
            moveReplica(second, to, from)
        }
    }

    // MARK: Annealing

    /// `moves` tries at replica moves and swaps while the temperature falls a hundredfold and the weights' floor
    /// rises from a tenth of the mean price to thirty times it; then `repair` clears what is still over.
    mutating func anneal(moves: Int) {
        // Only replicas move here; with no service cells nothing can.
        guard services > 0 else { return }
        let start = replicaScale / 12, end = start / 100
        weight = Array(repeating: unitPrice, count: clouds)
        var temperature = start
        for move in 0..<moves {
            let progress = Double(move) / Double(max(1, moves))
            if move % 64 == 0 { temperature = start * pow(end / start, progress) }
            if Int.random(in: 0..<10, using: &random) < 3 { trySwap(temperature) } else { tryMove(temperature) }
            if move % 200 == 199 {
                let level = 0.1 * pow(300, progress)
                adaptWeights(floor: ResourceVector(cpu: unitPrice.cpu * level, memory: unitPrice.memory * level, storage: unitPrice.storage * level))
            }
        }
        steps += moves
        repair()
        // The running sum drifts by rounding over millions of moves; the placement's own cost does not.
        cost = totalCost()
    }

    /// Moves replicas out of overloaded clouds into clouds with room, each time the one that costs least per
    /// share of the overload it clears, until nothing is over or nothing can move.
    mutating func repair() {
        while overloaded > 0 {
            var best: (score: Double, service: Int, from: Int, to: Int)?
            for from in 0..<clouds where overCount(from, usage[from]) > 0 {
                if let move = cheapestMoveToRoom(from: from, excess: excess(from)), best.map({ move.score < $0.score }) ?? true {
                    best = (move.score, move.service, from, move.to)
                }
            }
            guard let move = best else { return }
            moveReplica(move.service, move.from, move.to)
            steps += 1
        }
    }

    /// How far `cloud` is over capacity, resource by resource; zero where it is within.
    private func excess(_ cloud: Int) -> ResourceVector {
        let over = usage[cloud] - capacity[cloud]
        return ResourceVector(cpu: max(0, over.cpu), memory: max(0, over.memory), storage: max(0, over.storage))
    }

    /// The move of one replica out of `from` into a cloud with room that costs least per share of `excess` it clears.
    private func cheapestMoveToRoom(from: Int, excess: ResourceVector) -> (score: Double, service: Int, to: Int)? {
        var best: (score: Double, service: Int, to: Int)?
        for member in members[from] {
            let service = Int(member)
            let relief = Optimizer.coverage(unit[service], of: excess)
            guard relief > 0 else { continue }
            for to in targets[service] where mayMove(service, from, to) && unit[service].fits(within: capacity[to] - usage[to]) {
                let score = replicaChange(service, from, to) / relief
                if best.map({ score < $0.score }) ?? true { best = (score, service, to) }
            }
        }
        return best
    }

    /// Clears overloads the way the LP's prices say: out of each overloaded cloud in turn, the replica whose move
    /// costs least per share of the overload it clears, to one of the service's `nearest` clouds at `prices`, a
    /// cloud without room for it costing its price there as well (the move it will have to make in turn). A replica
    /// moved into a cloud never moves out again that way, so every chain ends; a cloud where no other replica can
    /// move sends any replica to a cloud with room, as `repair()` does. It comes close to what `repair()` reaches,
    /// which looks at every move out of every overloaded cloud each time, in a small part of its time; without the
    /// prices it repairs far dearer.
    mutating func repair(prices: [ResourceVector], nearest: Int) {
        let choices: [[Int]] = (0..<services).map { service in
            let priced = targets[service].map { (replicaCost[service * clouds + $0] + Self.price(prices[$0], unit[service]), $0) }
            return priced.sorted { $0 < $1 }.prefix(nearest).map(\.1)
        }
        var arrived = [Int32](repeating: 0, count: services * clouds)
        var progressed = true
        while overloaded > 0, progressed {
            progressed = false
            for from in 0..<clouds {
                while overCount(from, usage[from]) > 0 {
                    let excess = excess(from)
                    var best: (score: Double, service: Int, to: Int)?
                    for member in members[from] {
                        let service = Int(member)
                        guard count[service * clouds + from] > arrived[service * clouds + from] else { continue }
                        let relief = Optimizer.coverage(unit[service], of: excess)
                        guard relief > 0 else { continue }
                        for to in choices[service] where mayMove(service, from, to) {
                            let room = unit[service].fits(within: capacity[to] - usage[to])
                            let score = (replicaChange(service, from, to) + (room ? 0 : Self.price(prices[to], unit[service]))) / relief
                            if best.map({ score < $0.score }) ?? true { best = (score, service, to) }
                        }
                    }
                    guard let move = best ?? cheapestMoveToRoom(from: from, excess: excess) else { break }
                    moveReplica(move.service, from, move.to)
                    arrived[move.service * clouds + move.to] += 1
                    steps += 1
                    progressed = true
                }
            }
        }
    }

    // MARK: Primaries

    /// Tries primaries elsewhere, most promising first by `prices` (what a unit of each cloud's capacity is worth
    /// to the services, from the relaxation): each try moves one primary, anneals the services around it for
    /// `moves`, and is kept when the result fits and is cheaper. A try that fails is not repeated until some
    /// other move is kept. Stops after `tries`, or when no move looks better than `margin` more expensive. Each
    /// layout, the start's and every try's, ends with `exchange` for `exchanges` work, so the tries are judged
    /// against a start as settled as they are.
    mutating func refinePrimaries(prices: [ResourceVector], tries: Int, moves: Int, exchanges: Int) {
        guard isFeasible else { return }
        exchange(work: exchanges)
        let margin = replicaScale
        var tried = [Bool](repeating: false, count: problem.databases.count * clouds)
        var work = steps
        for _ in 0..<tries {
            var best: (estimate: Double, database: Int, cloud: Int)?
            for (database, cell) in problem.databases.enumerated() {
                let from = primary[database]
                let freed = Self.price(prices[from], cell.demand)
                for to in cell.allowedPrimaries where to != from && !tried[database * clouds + to] {
                    guard (databaseLoad[to] + cell.demand).fits(within: capacity[to]) else { continue }
                    let estimate = primaryChange(database, to) + Self.price(prices[to], cell.demand) - freed
                    if best.map({ (estimate, database, to) < ($0.estimate, $0.database, $0.cloud) }) ?? true {
                        best = (estimate, database, to)
                    }
                }
            }
            guard let move = best, move.estimate < margin else { break }
            tried[move.database * clouds + move.cloud] = true
            var trial = self
            trial.movePrimary(move.database, move.cloud)
            trial.anneal(moves: moves)
            trial.exchange(work: exchanges)
            work += trial.steps - steps
            if trial.isFeasible, trial.cost < cost - Optimizer.tolerance(cost) {
                self = trial
                tried = Array(repeating: false, count: tried.count)
            }
        }
        steps = work
    }

    private static func price(_ price: ResourceVector, _ amount: ResourceVector) -> Double {
        price.cpu * amount.cpu + price.memory * amount.memory + price.storage * amount.storage
    }
}

// MARK: Exchanges

/// Exchanges of replicas with the primaries fixed, each judged exactly. With the primaries fixed a replica costs
/// the same wherever the other cells are, so the layout is a transportation problem with two resources per cloud,
/// and the annealing leaves it a little short of that problem's optimum: the cheap clouds are full to the last
/// vCPU, so a replica can only move into one when another leaves it, and random tries rarely pair the right two.
/// Here every pair is looked at.
extension PenaltySearch {
    /// Where one replica of a service goes when it leaves a cloud, and what that changes in cost.
    private struct Exit {
        var change: Double
        var to: Int
    }

    /// How `exchange` walks the services.
    enum Sweep {
        /// In cell order, one move of a replica from each cloud a service uses, every remembered exit checked before
        /// it is compared: the settling of each primary try, short and repeated.
        case settling
        /// Those that could gain most first, each service's replicas moved again while they gain, a remembered exit
        /// checked only where it would win: one long run over a layout made afresh, where a pass costs far more than
        /// the work allows and the order decides what it reaches.
        case thorough
    }

    /// Moves a replica of each service to a cheaper cloud: directly when that cloud has room, else making room by
    /// moving out the replica of another service that loses least by leaving, to a cloud with room or to the one
    /// the first replica left. Passes over every service until a pass improves nothing or `work` (replicas and
    /// clouds looked at) is spent. Every cloud stays within capacity.
    mutating func exchange(work: Int, sweep: Sweep = .settling) {
        guard isFeasible else { return }
        let thorough = sweep == .thorough
        // Each replica's cheapest exit from each cloud, kept through a pass while it still fits: a cloud that
        // gained room since may be missed until the next pass, which costs less than looking again after every move.
        // Indexed cloud first: an eviction reads one cloud's row.
        var exits = [Exit?](repeating: nil, count: services * clouds)
        var known = Marker(count: services * clouds)
        var looked = 0
        var improved = true
        while improved, looked < work {
            improved = false
            known.clear()
            for service in thorough ? byGain() : Array(0..<services) where looked < work {
                for from in used[service] {
                    var again = true
                    while again {
                        again = false
                        for to in targets[service] where mayMove(service, from, to) {
                            let change = replicaChange(service, from, to)
                            guard change < -Optimizer.tolerance(cost) else { continue }
                            if unit[service].fits(within: capacity[to] - usage[to]) {
                                moveReplica(service, from, to)
                            } else {
                                looked += members[to].count
                                let limit = -change - Optimizer.tolerance(cost)
                                guard let (other, exit) = bestEviction(service, from: from, to: to, below: limit, lazily: thorough, &exits, &known, &looked)
                                else { continue }
                                moveReplica(service, from, to)
                                moveReplica(other, to, exit.to)
                            }
                            improved = true
                            again = thorough && count[service * clouds + from] > 0 && looked < work
                            break
                        }
                    }
                }
            }
        }
        steps += looked
        cost = totalCost()
    }

    /// The services by the most their replicas could gain moving to cheaper clouds, room or not, largest first.
    private func byGain() -> [Int] {
        var gain = [Double](repeating: 0, count: services)
        for service in 0..<services {
            for from in used[service] {
                var best = 0.0
                for to in targets[service] where mayMove(service, from, to) { best = min(best, replicaChange(service, from, to)) }
                gain[service] -= Double(count[service * clouds + from]) * best
            }
        }
        return (0..<services).sorted { (gain[$1], $0) < (gain[$0], $1) }
    }

    /// The replica in `to` whose leaving makes room for one of `service` arriving from `from` at the least cost below
    /// `limit` (none when no leaving costs less), and where it goes: the cheapest cloud with room, or `from` once the
    /// arriving replica has left it. `lazily`: a remembered exit is checked only where it would be chosen.
    private func bestEviction(
        _ service: Int, from: Int, to: Int, below limit: Double, lazily: Bool, _ exits: inout [Exit?], _ known: inout Marker, _ looked: inout Int
    ) -> (Int, Exit)? {
        let arriving = unit[service]
        let difference = cloudPrice[from] - cloudPrice[to]
        var best: (Int, Exit)?
        var bar = limit
        for member in members[to] {
            let other = Int(member)
            let size = unit[other]
            guard other != service, (usage[to] + arriving - size).fits(within: capacity[to]) else { continue }
            var candidate: Exit?
            // Never above the swap's change (the slack covers rounding), so a swap it rules out could not be chosen.
            let least = size.cpu * difference.cpu + size.memory * difference.memory - savingShare[other] * egress[from]
            if !(least - 1e-9 * abs(least) >= bar), mayMove(other, to, from), (usage[from] - arriving + size).fits(within: capacity[from]) {
                let change = replicaChange(other, to, from)
                if change < bar { candidate = Exit(change: change, to: from) }
            }
            let key = to * services + other
            if known.insert(key) {
                exits[key] = cheapestExit(other, from: to)
                looked += targets[other].count
            } else if let exit = exits[key], !lazily || exit.change < (candidate?.change ?? bar), !stillOpen(exit, other, from: to) {
                exits[key] = cheapestExit(other, from: to)
                looked += targets[other].count
            }
            if let exit = exits[key], exit.to != from, exit.change < (candidate?.change ?? bar) { candidate = exit }
            guard let exit = candidate else { continue }
            best = (other, exit)
            bar = exit.change
        }
        return best
    }

    /// Whether a remembered exit can still be taken; none found counts as still so.
    private func stillOpen(_ exit: Exit?, _ service: Int, from: Int) -> Bool {
        guard let exit else { return true }
        return mayMove(service, from, exit.to) && unit[service].fits(within: capacity[exit.to] - usage[exit.to])
    }

    /// The cheapest cloud with room for one more replica of `service` leaving `from`, and the change in cost.
    private func cheapestExit(_ service: Int, from: Int) -> Exit? {
        var best: Exit?
        for to in targets[service] where mayMove(service, from, to) && unit[service].fits(within: capacity[to] - usage[to]) {
            let change = replicaChange(service, from, to)
            if best.map({ change < $0.change }) ?? true { best = Exit(change: change, to: to) }
        }
        return best
    }
}
