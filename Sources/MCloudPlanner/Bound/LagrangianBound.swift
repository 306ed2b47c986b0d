import Foundation
import Synchronization

/// A lower bound of LP quality on the cheapest placement, and the prices that prove it.
///
/// Two kinds of rows of the problem move into the objective at a price. Each cloud's capacity, per unit of each
/// resource. And for each service-database edge and each cloud both may use, "the replicas counted as next to the
/// primary are replicas the service has there": its price splits the egress those replicas save between the
/// database, which without it would count every replica spread allows as next to it, and the service, which then
/// earns it on each replica it keeps in that cloud. What is left falls apart cell by cell, and each cell is solved
/// exactly: a service's cheapest replicas at the prices (spread included), a database's cheapest primary with the
/// savings its edges leave it. Any prices give a valid bound (`evaluate`), at least the LP relaxation's at the best.
///
/// The best prices are sought on a smoothed copy of the same function: each cell's minimum over its choices becomes
/// a soft minimum at a temperature, which is never above the minimum (so it is a bound too) and has a gradient, so
/// projected L-BFGS climbs it; the temperature falls phase by phase. Work is counted in evaluations, never in time.
struct LagrangianBound {
    private let clouds: Int
    private let capacity: [ResourceVector]
    /// The CDNs at their cheapest: no capacity, no edges.
    private let constant: Double
    // Services: their allowed clouds as positions `serviceStart[s]..<serviceStart[s + 1]` of the position arrays.
    private var serviceStart: [Int] = [0]
    private var positionCloud: [Int] = []
    private var positionCost: [Double] = []
    private var serviceUnit: [ResourceVector] = []
    /// Replicas by rank in the cheapest order (spread fixes them): `rankStart[s]..<rankStart[s + 1]`.
    private var rankStart: [Int] = [0]
    private var rankCount: [Double] = []
    /// The same as layers: `layerMultiple[l]` times the `layerSize[l]` cheapest clouds, one replica in each.
    private var layerStart: [Int] = [0]
    private var layerSize: [Int] = []
    private var layerMultiple: [Double] = []
    private var serviceLinkStart: [Int] = [0]
    private var serviceLink: [Int] = []
    // Databases: primaries as options `optionStart[d]..<optionStart[d + 1]`, each with its edges' links.
    private var optionStart: [Int] = [0]
    private var optionCloud: [Int] = []
    private var optionDatabase: [Int] = []
    /// Primary, standbys, DR leg and the egress of every edge paid in full.
    private var optionCost: [Double] = []
    private var databaseDemand: [ResourceVector] = []
    private var optionLinkStart: [Int] = [0]
    // Links: one edge in one cloud both ends may use, in option order.
    private var linkPosition: [Int] = []
    private var linkOption: [Int] = []
    /// Egress one replica there saves: traffic over replicas times the cloud's egress price.
    private var linkSaving: [Double] = []
    /// The most replicas spread lets the service keep there.
    private var linkKeep: [Double] = []

    /// The services in contiguous shares, each with its scratch, that `evaluate` and `smoothed` run at once.
    private var shares: [LockedShare] = []
    private var shareCount: Int?
    /// The smoothed function's curvature along each price, for the diagonal scaling of the steps.
    private var curvature: [Double] = []
    /// The databases' scratch.
    private var weight: [Double] = []

    /// The best bound found, its capacity prices, and all its prices (links too) with the temperature of the phase
    /// that found them: where `softReplicas` reads the LP's layout.
    struct Result {
        var value: Double
        var prices: [ResourceVector]
        var dual: [Double]
        var temperature: Double
    }

    /// `shares`: the services' shares, nil to size them to the problem (tests compare one with several).
    init(_ problem: PlanningProblem, shares: Int? = nil) {
        shareCount = shares
        clouds = problem.clouds.count
        capacity = problem.clouds.map(\.capacity)
        constant = problem.cheapestCDNCost
        var positionOf = [Int](repeating: -1, count: problem.clouds.count)
        var servicePositionStart: [Int] = []
        for cell in problem.services {
            servicePositionStart.append(positionCloud.count)
            for cloud in cell.allowed {
                positionCloud.append(cloud)
                positionCost.append(cell.replicaCost[cloud])
            }
            serviceStart.append(positionCloud.count)
            serviceUnit.append(cell.perReplica)
            let ranks = Self.ranks(replicas: cell.replicas, limit: max(1, cell.maxPerCloud), minClouds: cell.minClouds)
            rankCount.append(contentsOf: ranks)
            rankStart.append(rankCount.count)
            for size in stride(from: ranks.count, through: 1, by: -1) {
                let multiple = ranks[size - 1] - (size < ranks.count ? ranks[size] : 0)
                guard multiple > 0 else { continue }
                layerSize.append(size)
                layerMultiple.append(multiple)
            }
            layerStart.append(layerSize.count)
        }
        var linksOfService = [[Int]](repeating: [], count: problem.services.count)
        for cell in problem.databases {
            let first = optionCloud.count
            let traffic = cell.edges.reduce(0.0) { $0 + $1.trafficGiBMonth }
            for cloud in cell.allowedPrimaries {
                optionCloud.append(cloud)
                optionDatabase.append(optionStart.count - 1)
                optionCost.append(cell.totalCost(primary: cloud) + traffic * problem.clouds[cloud].egressGiB)
            }
            optionStart.append(optionCloud.count)
            databaseDemand.append(cell.demand)
            // Links of this database, option by option; an edge's service positions looked up through positionOf.
            var pending: [(option: Int, service: Int, position: Int, saving: Double, keep: Double)] = []
            for edge in cell.edges {
                let service = problem.services[edge.cell]
                for (offset, cloud) in service.allowed.enumerated() { positionOf[cloud] = servicePositionStart[edge.cell] + offset }
                for option in first..<optionCloud.count where positionOf[optionCloud[option]] >= 0 {
                    let cloud = optionCloud[option]
                    pending.append((
                        option, edge.cell, positionOf[cloud],
                        edge.trafficGiBMonth * problem.clouds[cloud].egressGiB / Double(service.replicas),
                        Double(min(service.maxPerCloud, service.replicas))
                    ))
                }
                for cloud in service.allowed { positionOf[cloud] = -1 }
            }
            pending.sort { ($0.option, $0.service, $0.position) < ($1.option, $1.service, $1.position) }
            var at = 0
            for option in first..<optionCloud.count {
                while at < pending.count, pending[at].option == option {
                    let link = pending[at]
                    linksOfService[link.service].append(linkPosition.count)
                    linkPosition.append(link.position)
                    linkOption.append(option)
                    linkSaving.append(link.saving)
                    linkKeep.append(link.keep)
                    at += 1
                }
                optionLinkStart.append(linkPosition.count)
            }
        }
        for links in linksOfService {
            serviceLink.append(contentsOf: links)
            serviceLinkStart.append(serviceLink.count)
        }
        curvature = Array(repeating: 0, count: 3 * clouds + linkPosition.count)
        makeShares()
    }

    /// Replicas by rank as `Optimizer.fill` places them when every cloud has room: one in each of the first
    /// minClouds, those topped up to the limit in order, then further clouds filled as far as the limit goes.
    static func ranks(replicas: Int, limit: Int, minClouds: Int) -> [Double] {
        var counts = [Int](repeating: 1, count: min(max(0, minClouds), replicas))
        var left = replicas - counts.count
        for rank in counts.indices where left > 0 {
            let added = min(limit - 1, left)
            counts[rank] += added
            left -= added
        }
        while left > 0 {
            counts.append(min(limit, left))
            left -= counts[counts.count - 1]
        }
        return counts.map(Double.init)
    }

    /// Prices in one array: three per cloud (vCPU, memory, storage), then one per link.
    var dimension: Int { 3 * clouds + linkPosition.count }

    /// Capacity prices as given, and link prices that give each service the whole saving next to its database's
    /// primary in `primary` (a cloud per database) and none elsewhere: the LP's where the placement is integral.
    ///
    /// First drops the links of primaries no database prefers at these prices: those dearer, even with every saving
    /// their edges allow, than the database's cheapest primary with none. Their prices stay 0, the best a price can
    /// do there while the capacity prices stay close (a database that never takes the cloud loses nothing by it,
    /// and a service given a credit there only lowers the bound); the savings fold into the option's cost.
    mutating func start(prices: [ResourceVector], primary: [Int]) -> [Double] {
        var keep = [Bool](repeating: true, count: linkPosition.count)
        for database in 0..<databaseDemand.count {
            let demand = databaseDemand[database]
            let options = optionStart[database]..<optionStart[database + 1]
            func cost(_ option: Int) -> Double {
                let cloud = optionCloud[option]
                guard cloud < prices.count else { return optionCost[option] }
                let price = prices[cloud]
                return optionCost[option] + max(0, price.cpu) * demand.cpu + max(0, price.memory) * demand.memory + max(0, price.storage) * demand.storage
            }
            guard let ceiling = options.map(cost).min() else { continue }
            for option in options {
                var floor = cost(option)
                for link in optionLinkStart[option]..<optionLinkStart[option + 1] { floor -= linkKeep[link] * linkSaving[link] }
                guard floor > ceiling else { continue }
                for link in optionLinkStart[option]..<optionLinkStart[option + 1] { keep[link] = false }
            }
        }
        restrict(to: keep)
        var dual = [Double](repeating: 0, count: dimension)
        for cloud in 0..<min(clouds, prices.count) {
            dual[3 * cloud] = max(0, prices[cloud].cpu)
            dual[3 * cloud + 1] = max(0, prices[cloud].memory)
            dual[3 * cloud + 2] = max(0, prices[cloud].storage)
        }
        for link in linkOption.indices {
            let option = linkOption[link], database = optionDatabase[option]
            if primary.indices.contains(database), primary[database] == optionCloud[option] { dual[3 * clouds + link] = linkSaving[link] }
        }
        return dual
    }

    /// Keeps the links marked, folding each other one's saving into its option's cost at a price of 0.
    private mutating func restrict(to keep: [Bool]) {
        var position: [Int] = [], option: [Int] = [], saving: [Double] = [], keeps: [Double] = []
        var optionStarts = [0]
        var linksOfService = [[Int]](repeating: [], count: serviceUnit.count)
        var serviceOf = [Int](repeating: 0, count: positionCloud.count)
        for service in 0..<serviceUnit.count {
            for at in serviceStart[service]..<serviceStart[service + 1] { serviceOf[at] = service }
        }
        for current in 0..<optionCloud.count {
            for link in optionLinkStart[current]..<optionLinkStart[current + 1] {
                guard keep[link] else {
                    optionCost[current] -= linkKeep[link] * linkSaving[link]
                    continue
                }
                linksOfService[serviceOf[linkPosition[link]]].append(position.count)
                position.append(linkPosition[link])
                option.append(current)
                saving.append(linkSaving[link])
                keeps.append(linkKeep[link])
            }
            optionStarts.append(position.count)
        }
        (linkPosition, linkOption, linkSaving, linkKeep, optionLinkStart) = (position, option, saving, keeps, optionStarts)
        serviceLink = linksOfService.flatMap { $0 }
        serviceLinkStart = [0]
        for links in linksOfService { serviceLinkStart.append(serviceLinkStart[serviceLinkStart.count - 1] + links.count) }
        curvature = Array(repeating: 0, count: dimension)
        makeShares()
    }

    // MARK: The dual function

    private func capacityPrice(_ dual: [Double], _ cloud: Int, _ amount: ResourceVector) -> Double {
        dual[3 * cloud] * amount.cpu + dual[3 * cloud + 1] * amount.memory + dual[3 * cloud + 2] * amount.storage
    }

    private func optionValue(_ dual: [Double], _ option: Int, _ demand: ResourceVector) -> Double {
        var cost = optionCost[option] + capacityPrice(dual, optionCloud[option], demand)
        let links = 3 * clouds
        for link in optionLinkStart[option]..<optionLinkStart[option + 1] {
            cost -= linkKeep[link] * (linkSaving[link] - dual[links + link])
        }
        return cost
    }

    /// The bound at `dual`, which must be within its box (capacity prices at least 0, link prices in [0, saving]).
    mutating func evaluate(_ dual: [Double]) -> Double {
        var value = constant
        for cloud in 0..<clouds { value -= capacityPrice(dual, cloud, capacity[cloud]) }
        for database in 0..<databaseDemand.count {
            var best = Double.infinity
            for option in optionStart[database]..<optionStart[database + 1] {
                best = min(best, optionValue(dual, option, databaseDemand[database]))
            }
            if best.isFinite { value += best }
        }
        return runShares(from: value) { share, bound in share.evaluate(bound, dual) }
    }

    // MARK: The smoothed function

    /// Choices further than this many temperatures from the minimum weigh less than e^-25 (about 1e-11): left out.
    private static let reach = 25.0

    /// The smoothed bound at `dual` and its gradient, at `temperature`: never above `evaluate(dual)`.
    mutating func smoothed(_ dual: [Double], temperature: Double, gradient: inout [Double]) -> Double {
        let links = 3 * clouds
        var value = constant
        for cloud in 0..<clouds {
            value -= capacityPrice(dual, cloud, capacity[cloud])
            gradient[3 * cloud] = -capacity[cloud].cpu
            gradient[3 * cloud + 1] = -capacity[cloud].memory
            gradient[3 * cloud + 2] = -capacity[cloud].storage
        }
        for link in 0..<linkPosition.count { gradient[links + link] = 0 }
        for index in curvature.indices { curvature[index] = 0 }
        for database in 0..<databaseDemand.count {
            let first = optionStart[database], end = optionStart[database + 1]
            guard first < end else { continue }
            let demand = databaseDemand[database]
            var least = Double.infinity
            weight.removeAll(keepingCapacity: true)
            for option in first..<end {
                let cost = optionValue(dual, option, demand)
                weight.append(cost)
                least = min(least, cost)
            }
            var total = 0.0
            for index in weight.indices {
                let shifted = (weight[index] - least) / temperature
                weight[index] = shifted > Self.reach ? 0 : exp(-shifted)
                total += weight[index]
            }
            value += least - temperature * log(total)
            for (index, option) in (first..<end).enumerated() where weight[index] > 0 {
                let share = weight[index] / total
                let cloud = optionCloud[option]
                let spread = share * (1 - share) / temperature
                gradient[3 * cloud] += share * demand.cpu
                gradient[3 * cloud + 1] += share * demand.memory
                gradient[3 * cloud + 2] += share * demand.storage
                curvature[3 * cloud] += spread * demand.cpu * demand.cpu
                curvature[3 * cloud + 1] += spread * demand.memory * demand.memory
                curvature[3 * cloud + 2] += spread * demand.storage * demand.storage
                for link in optionLinkStart[option]..<optionLinkStart[option + 1] {
                    gradient[links + link] += share * linkKeep[link]
                    curvature[links + link] += spread * linkKeep[link] * linkKeep[link]
                }
            }
        }
        // The first share goes on from the databases' sums, the others from zero; all are added in share order.
        for (index, locked) in shares.enumerated() {
            locked.mutex.withLock { share in
                for price in 0..<links {
                    share.gradient[price] = index == 0 ? gradient[price] : 0
                    share.curvature[price] = index == 0 ? curvature[price] : 0
                }
            }
        }
        value = runShares(from: value) { share, bound in share.smooth(bound, dual, temperature: temperature) }
        for (index, locked) in shares.enumerated() {
            locked.mutex.withLock { share in
                for price in 0..<links {
                    gradient[price] = index == 0 ? share.gradient[price] : gradient[price] + share.gradient[price]
                    curvature[price] = index == 0 ? share.curvature[price] : curvature[price] + share.curvature[price]
                }
                for offset in share.linkExpected.indices {
                    let link = serviceLink[share.origin.serviceLink + offset]
                    gradient[links + link] -= share.linkExpected[offset]
                    curvature[links + link] += share.linkVariance[offset] / temperature
                }
            }
        }
        return value
    }

    /// Each service's expected replicas in each cloud in the smoothed function at `dual` and `temperature`, a row of
    /// clouds per service: at the best prices of a cold phase, the LP's layout blurred by the temperature.
    mutating func softReplicas(_ dual: [Double], temperature: Double) -> [Double] {
        for locked in shares {
            locked.mutex.withLock { share in share.soft = Array(repeating: 0, count: share.work.count) }
        }
        var gradient = [Double](repeating: 0, count: dimension)
        _ = smoothed(dual, temperature: temperature, gradient: &gradient)
        var replicas = [Double](repeating: 0, count: serviceUnit.count * clouds)
        for locked in shares {
            locked.mutex.withLock { share in
                for service in share.origin.services {
                    for position in serviceStart[service]..<serviceStart[service + 1] {
                        replicas[service * clouds + positionCloud[position]] = share.soft[position - share.origin.position]
                    }
                }
                share.soft = []
            }
        }
        return replicas
    }

    // MARK: Shares of the services

    /// From this many positions on, the services run in two shares at once (the 100-cloud instances have about
    /// 300,000, the synthetic input 620,000). Below it an evaluation takes a few milliseconds or less, and one share
    /// keeps the serial arithmetic, so the smaller instances' bounds and plans are bit for bit what they were.
    private static let positionsToShare = 100_000

    /// Splits the services into contiguous shares of about equal positions.
    private mutating func makeShares() {
        let count = max(1, shareCount ?? (positionCloud.count >= Self.positionsToShare ? 2 : 1))
        var starts = [0]
        for share in 1..<count {
            var service = starts[starts.count - 1]
            while service < serviceUnit.count, serviceStart[service] < positionCloud.count * share / count { service += 1 }
            starts.append(service)
        }
        starts.append(serviceUnit.count)
        shares = (0..<count).map { LockedShare(Share(services: starts[$0]..<starts[$0 + 1], of: self)) }
    }

    /// Runs `body` on every share, at once when there are several, each under its own lock: the first share's value
    /// starts at `value`, the others' at zero. Returns their values added in share order, so the sum never depends
    /// on the threads.
    private func runShares(from value: Double, _ body: @Sendable (inout Share, LagrangianBound) -> Void) -> Double {
        @Sendable func run(_ index: Int) {
            shares[index].mutex.withLock { share in
                share.value = index == 0 ? value : 0
                body(&share, self)
            }
        }
        if shares.count > 1 { DispatchQueue.concurrentPerform(iterations: shares.count, execute: run) } else { run(0) }
        let values = shares.map { locked in locked.mutex.withLock { $0.value } }
        return values.dropFirst().reduce(values[0], +)
    }

    /// A share behind its own lock, which is what lets the threads of `runShares` hold shares at once: each holds its
    /// share's for the whole pass, and nobody else asks for it meanwhile (`smoothed` takes it before and after, to
    /// seed and to gather the sums), so the lock is never contended.
    private final class LockedShare: Sendable {
        let mutex: Mutex<Share>

        init(_ share: sending Share) {
            mutex = Mutex(share)
        }
    }

    /// A share's services, and where they start in the bound's position, rank and service link arrays: its scratch
    /// is indexed from there.
    private struct Origin {
        let services: Range<Int>
        let position: Int, rank: Int, serviceLink: Int

        /// The service's positions, as indices of the scratch.
        func positions(of service: Int, in bound: LagrangianBound) -> Range<Int> {
            bound.serviceStart[service] - position..<bound.serviceStart[service + 1] - position
        }

        /// Each position's replica price at `dual` into `work`.
        func price(_ bound: LagrangianBound, _ dual: [Double], _ service: Int, into work: inout MutableSpan<Double>) {
            let unit = bound.serviceUnit[service]
            for position in bound.serviceStart[service]..<bound.serviceStart[service + 1] {
                work[position - self.position] = bound.positionCost[position] + bound.capacityPrice(dual, bound.positionCloud[position], unit)
            }
            let links = 3 * bound.clouds
            for index in bound.serviceLinkStart[service]..<bound.serviceLinkStart[service + 1] {
                let link = bound.serviceLink[index]
                work[bound.linkPosition[link] - self.position] -= dual[links + link]
            }
        }

        /// The service's cheapest positions by `work`, ties to the earlier (lower cloud index), into `chosen` by rank;
        /// returns how many there are (fewer than the ranks only when too few clouds are allowed).
        func cheapest(_ bound: LagrangianBound, _ service: Int, _ work: Span<Double>, into chosen: inout MutableSpan<Int>) -> Int {
            let ranks = bound.rankStart[service] - rank, width = bound.rankStart[service + 1] - bound.rankStart[service]
            var taken = 0
            for position in positions(of: service, in: bound) {
                let cost = work[position]
                if taken == width, cost >= work[chosen[ranks + width - 1]] { continue }
                var at = min(taken, width - 1)
                if taken < width { taken += 1 }
                while at > 0, cost < work[chosen[ranks + at - 1]] {
                    chosen[ranks + at] = chosen[ranks + at - 1]
                    at -= 1
                }
                chosen[ranks + at] = position
            }
            return taken
        }
    }

    /// A contiguous run of services with its own scratch, indexed from its `origin`, so that shares run at once; the
    /// sums it leaves are the share's part of the function and its gradient. The hot loops reach the scratch through
    /// spans taken once a pass, so they skip the arrays' uniqueness checks.
    private struct Share {
        let origin: Origin
        /// The share's part of the value.
        var value = 0.0
        /// Each position's replica price at the prices evaluated; its expected replicas in the soft minimum and their
        /// variance, zero between services.
        var work: [Double], expected: [Double], variance: [Double]
        /// The cheapest positions by rank; a service's positions within reach; a layer's window of them.
        var chosen: [Int], pool: [Int], window: [Int]
        /// The window's weights and their suffix sums.
        var weight: [Double], suffix: [Double]
        /// The smoothed function's gradient and curvature over the capacity prices, three a cloud; the replicas
        /// expected at each of the share's service links and their variance.
        var gradient: [Double], curvature: [Double], linkExpected: [Double], linkVariance: [Double]
        /// The general recursion's tables, for sets of three or more.
        var forward: [Double] = []
        var backward: [Double] = []
        /// Each position's expected replicas in the last pass, when `softReplicas` asks for them; empty otherwise.
        var soft: [Double] = []

        init(services: Range<Int>, of bound: LagrangianBound) {
            origin = Origin(
                services: services, position: bound.serviceStart[services.lowerBound], rank: bound.rankStart[services.lowerBound],
                serviceLink: bound.serviceLinkStart[services.lowerBound]
            )
            let positions = bound.serviceStart[services.upperBound] - origin.position
            let links = bound.serviceLinkStart[services.upperBound] - origin.serviceLink
            let widest = services.map { bound.serviceStart[$0 + 1] - bound.serviceStart[$0] }.max() ?? 0
            (work, expected, variance) = (Array(repeating: 0, count: positions), Array(repeating: 0, count: positions), Array(repeating: 0, count: positions))
            (chosen, pool, window) = (Array(repeating: 0, count: bound.rankStart[services.upperBound] - origin.rank), Array(repeating: 0, count: widest), Array(repeating: 0, count: widest))
            (weight, suffix) = (Array(repeating: 0, count: widest), Array(repeating: 0, count: widest + 1))
            (gradient, curvature) = (Array(repeating: 0, count: 3 * bound.clouds), Array(repeating: 0, count: 3 * bound.clouds))
            (linkExpected, linkVariance) = (Array(repeating: 0, count: links), Array(repeating: 0, count: links))
        }

        // Spans of two stored properties of one struct overlap for the compiler (Swift 6.3: "overlapping accesses to
        // 'self'"), whereas separate inout arguments do not: each pass hands its arrays to a static function as such,
        // which takes their spans once for the whole pass.

        mutating func evaluate(_ bound: LagrangianBound, _ dual: [Double]) {
            Self.evaluate(bound, dual, origin, value: &value, work: &work, chosen: &chosen)
        }

        private static func evaluate(
            _ bound: LagrangianBound, _ dual: [Double], _ origin: Origin, value: inout Double, work: inout [Double], chosen: inout [Int]
        ) {
            var work = work.mutableSpan, chosen = chosen.mutableSpan
            for service in origin.services {
                origin.price(bound, dual, service, into: &work)
                let ranks = bound.rankStart[service]
                let taken = origin.cheapest(bound, service, work.span, into: &chosen)
                for rank in 0..<taken { value += bound.rankCount[ranks + rank] * work[chosen[ranks - origin.rank + rank]] }
            }
        }

        /// The services' part of the smoothed function at `dual` into the share's sums. The first share's capacity
        /// gradient and curvature must start where the databases left them, the others' at zero.
        mutating func smooth(_ bound: LagrangianBound, _ dual: [Double], temperature: Double) {
            Self.smooth(
                bound, dual, temperature: temperature, origin, value: &value, work: &work, expected: &expected, variance: &variance,
                chosen: &chosen, pool: &pool, window: &window, weight: &weight, suffix: &suffix, gradient: &gradient, curvature: &curvature,
                linkExpected: &linkExpected, linkVariance: &linkVariance, forward: &forward, backward: &backward, soft: &soft
            )
        }

        private static func smooth(
            _ bound: LagrangianBound, _ dual: [Double], temperature: Double, _ origin: Origin, value: inout Double,
            work: inout [Double], expected: inout [Double], variance: inout [Double], chosen: inout [Int], pool: inout [Int],
            window: inout [Int], weight: inout [Double], suffix: inout [Double], gradient: inout [Double], curvature: inout [Double],
            linkExpected: inout [Double], linkVariance: inout [Double], forward: inout [Double], backward: inout [Double],
            soft: inout [Double]
        ) {
            let recording = !soft.isEmpty
            var work = work.mutableSpan, chosen = chosen.mutableSpan, pool = pool.mutableSpan
            var expected = expected.mutableSpan, variance = variance.mutableSpan
            var window = window.mutableSpan, weight = weight.mutableSpan, suffix = suffix.mutableSpan
            var gradient = gradient.mutableSpan, curvature = curvature.mutableSpan
            var linkExpected = linkExpected.mutableSpan, linkVariance = linkVariance.mutableSpan
            for service in origin.services {
                let unit = bound.serviceUnit[service]
                let ranks = bound.rankStart[service] - origin.rank
                origin.price(bound, dual, service, into: &work)
                let taken = origin.cheapest(bound, service, work.span, into: &chosen)
                guard taken > 0 else { continue }
                // Every layer's threshold is at most the last rank's: positions beyond its reach weigh nothing anywhere.
                let ceiling = work[chosen[ranks + taken - 1]] + LagrangianBound.reach * temperature
                var pooled = 0
                for position in origin.positions(of: service, in: bound) where work[position] <= ceiling {
                    pool[pooled] = position
                    pooled += 1
                }
                let reached = pool.span.extracting(0..<pooled)
                for layer in bound.layerStart[service]..<bound.layerStart[service + 1] where bound.layerSize[layer] <= taken {
                    let size = bound.layerSize[layer], multiple = bound.layerMultiple[layer]
                    value += multiple * softCheapest(
                        reached, work.span, size: size, threshold: work[chosen[ranks + size - 1]], temperature: temperature, multiple: multiple,
                        expected: &expected, variance: &variance, window: &window, weight: &weight, suffix: &suffix, forward: &forward, backward: &backward
                    )
                }
                for index in reached.indices where expected[reached[index]] > 0 {
                    let position = reached[index]
                    let cloud = bound.positionCloud[position + origin.position], count = expected[position]
                    gradient[3 * cloud] += count * unit.cpu
                    gradient[3 * cloud + 1] += count * unit.memory
                    curvature[3 * cloud] += variance[position] * unit.cpu * unit.cpu / temperature
                    curvature[3 * cloud + 1] += variance[position] * unit.memory * unit.memory / temperature
                }
                for index in bound.serviceLinkStart[service]..<bound.serviceLinkStart[service + 1] {
                    let position = bound.linkPosition[bound.serviceLink[index]] - origin.position
                    linkExpected[index - origin.serviceLink] = expected[position]
                    linkVariance[index - origin.serviceLink] = variance[position]
                }
                for index in reached.indices {
                    if recording { soft[reached[index]] = expected[reached[index]] }
                    expected[reached[index]] = 0
                    variance[reached[index]] = 0
                }
            }
        }

        /// The soft minimum over sets of `size` of the `reached` positions of their summed `work`, adding `multiple`
        /// times each position's chance of being in the set to `expected` and its variance to `variance`. Positions
        /// far below `threshold` (the size-th cheapest) are in every set that counts, those far above in none; the
        /// rest go through the elementary symmetric sums of their weights, in `window` and `weight`.
        private static func softCheapest(
            _ reached: Span<Int>, _ work: Span<Double>, size: Int, threshold: Double, temperature: Double, multiple: Double,
            expected: inout MutableSpan<Double>, variance: inout MutableSpan<Double>, window: inout MutableSpan<Int>,
            weight: inout MutableSpan<Double>, suffix: inout MutableSpan<Double>, forward: inout [Double], backward: inout [Double]
        ) -> Double {
            var sure = 0.0
            var left = size
            var count = 0
            for index in reached.indices {
                let position = reached[index]
                let shifted = (work[position] - threshold) / temperature
                if shifted > LagrangianBound.reach { continue }
                if shifted < -LagrangianBound.reach {
                    sure += work[position]
                    left -= 1
                    expected[position] += multiple
                    continue
                }
                window[count] = position
                weight[count] = exp(-shifted)
                count += 1
            }
            guard left > 0 else { return sure }
            let total = SoftSets.chances(&weight, count: count, left: left, suffix: &suffix, forward: &forward, backward: &backward)
            guard total > 0 else { return sure }
            for index in 0..<count {
                let position = window[index], chance = weight[index]
                expected[position] += multiple * chance
                variance[position] += multiple * multiple * chance * (1 - chance)
            }
            return sure + Double(left) * threshold - temperature * log(total)
        }
    }

    // MARK: Climbing

    /// Climbs from `start` (see `start(prices:primary:)`) on `evaluations` evaluations of the smoothed function. The
    /// temperature starts at `hottest` times a cell's mean cost (`upperBound`, a cost some placement reaches, over
    /// the cells) and falls by thirds over `phases` phases; a phase gets its share of the evaluations, or ends sooner
    /// once it stops gaining. Each phase's prices are scored with the exact function; the best is the bound.
    /// Deterministic.
    mutating func solve(from start: [Double], upperBound: Double, evaluations: Int, phases: Int = 5, hottest: Double = 0.01) -> Result {
        let cooling = 3.0
        let size = dimension
        var dual = start
        clampToBox(&dual)
        var best = evaluate(dual)
        var bestDual = dual
        let cells = max(1, serviceUnit.count + databaseDemand.count)
        var temperature = hottest * max(1e-9, abs(upperBound)) / Double(cells)
        var bestTemperature = temperature
        var gradient = [Double](repeating: 0, count: size)
        var trialGradient = gradient
        var trial = dual
        var direction = dual
        var precondition = dual
        var free = dual
        var spent = 0
        while spent < evaluations, temperature > 1e-9 * max(1e-9, abs(upperBound)) / Double(cells) {
            var value = smoothed(dual, temperature: temperature, gradient: &gradient)
            spent += 1
            var pairs: [(s: [Double], y: [Double], rho: Double)] = []
            // A fixed share of the whole; a phase that stops gaining leaves the rest to the colder ones.
            let phaseEnd = min(evaluations, spent + max(Self.stall + 2, evaluations / phases))
            var recent: [Double] = [value]
            while spent < phaseEnd {
                if recent.count > Self.stall, value - recent[recent.count - 1 - Self.stall] < 1e-7 * abs(value) { break }
                // Projected L-BFGS: the quasi-Newton direction over the prices free to move, the diagonal curvature
                // as the starting metric; along the projected path, halving until the Armijo test passes.
                scaling(&precondition)
                for index in 0..<size { free[index] = isFree(index, dual[index], gradient[index]) ? gradient[index] : 0 }
                quasiNewton(&direction, free, pairs, precondition)
                var slope = 0.0
                for index in 0..<size where free[index] != 0 || direction[index] != 0 {
                    if !isFree(index, dual[index], gradient[index]) { direction[index] = 0 }
                    slope += gradient[index] * direction[index]
                }
                if !(slope > 0) {
                    pairs.removeAll()
                    for index in 0..<size { direction[index] = free[index] * precondition[index] }
                    slope = (0..<size).reduce(0.0) { $0 + gradient[$1] * direction[$1] }
                }
                guard slope > 1e-12 * max(1, abs(value)) else { break }
                var fraction = 1.0
                // Without pairs the metric is the curvature alone, which a cold phase far from its optimum can make
                // many orders too long: shorter steps are tried then rather than ending the phase.
                let shortest = pairs.isEmpty ? Self.shortestFirstStep : 1e-4
                var accepted = false
                var trialValue = value
                while spent < phaseEnd, fraction > shortest {
                    for index in 0..<size { trial[index] = dual[index] + fraction * direction[index] }
                    clampToBox(&trial)
                    var gain = 0.0
                    for index in 0..<size { gain += gradient[index] * (trial[index] - dual[index]) }
                    trialValue = smoothed(trial, temperature: temperature, gradient: &trialGradient)
                    spent += 1
                    if trialValue >= value + 1e-4 * gain {
                        accepted = true
                        break
                    }
                    fraction /= 4
                }
                guard accepted else {
                    if pairs.isEmpty { break }
                    pairs.removeAll()
                    continue
                }
                var step = [Double](repeating: 0, count: size), change = step
                var sy = 0.0
                for index in 0..<size {
                    step[index] = trial[index] - dual[index]
                    change[index] = gradient[index] - trialGradient[index]
                    sy += step[index] * change[index]
                }
                if sy > 1e-12 {
                    if pairs.count == Self.memory { pairs.removeFirst() }
                    pairs.append((step, change, 1 / sy))
                }
                swap(&dual, &trial)
                swap(&gradient, &trialGradient)
                value = trialValue
                recent.append(value)
            }
            let exact = evaluate(dual)
            if exact > best { (best, bestDual, bestTemperature) = (exact, dual, temperature) }
            temperature /= cooling
        }
        let prices = (0..<clouds).map { ResourceVector(cpu: bestDual[3 * $0], memory: bestDual[3 * $0 + 1], storage: bestDual[3 * $0 + 2]) }
        return Result(value: best, prices: prices, dual: bestDual, temperature: bestTemperature)
    }

    private static let memory = 6
    private static let shortestFirstStep = 1e-10
    /// A phase ends once this many steps have gained less than a ten-millionth.
    private static let stall = 5

    /// Evaluations sized to the problem: about 2e7 visits of positions, links and options in all, at least 120 and
    /// at most 1,500. The floor rules from about 170,000 visits on (the 100-cloud instances, the synthetic input),
    /// where the bound ends near where its starting prices put it; it is as high as the synthetic input's 10 s leave
    /// room for, since each further evaluation there adds less and less (docs/planner.md, Tuning).
    var defaultEvaluations: Int {
        let work = positionCloud.count + linkPosition.count + optionCloud.count
        return min(1_500, max(Self.leastEvaluations, 20_000_000 / max(1, work)))
    }

    /// The floor of `defaultEvaluations`.
    static let leastEvaluations = 120

    /// The same bound with its services in `count` shares: its own scratch, the rest of its arrays shared until
    /// written, so it can climb on another thread while this one is used.
    func resharing(_ count: Int) -> LagrangianBound {
        var copy = self
        copy.shareCount = count
        copy.makeShares()
        return copy
    }

    /// Whether a price may move along `gradient`: not at a bound it would leave.
    private func isFree(_ index: Int, _ price: Double, _ gradient: Double) -> Bool {
        if price <= 0, gradient < 0 { return false }
        if index >= 3 * clouds, price >= linkSaving[index - 3 * clouds], gradient > 0 { return false }
        return true
    }

    /// The two-loop recursion: `direction` = H `gradient`, H the L-BFGS inverse Hessian from `pairs` (oldest first)
    /// over the diagonal `metric` scaled by the newest pair.
    private func quasiNewton(_ direction: inout [Double], _ gradient: [Double], _ pairs: [(s: [Double], y: [Double], rho: Double)], _ metric: [Double]) {
        let size = gradient.count
        for index in 0..<size { direction[index] = gradient[index] }
        var alphas = [Double](repeating: 0, count: pairs.count)
        for k in stride(from: pairs.count - 1, through: 0, by: -1) {
            var dot = 0.0
            for index in 0..<size { dot += pairs[k].s[index] * direction[index] }
            alphas[k] = pairs[k].rho * dot
            for index in 0..<size { direction[index] -= alphas[k] * pairs[k].y[index] }
        }
        var gamma = 1.0
        if let last = pairs.last {
            var yhy = 0.0
            for index in 0..<size { yhy += last.y[index] * metric[index] * last.y[index] }
            if yhy > 0 { gamma = (1 / last.rho) / yhy }
        }
        for index in 0..<size { direction[index] *= gamma * metric[index] }
        for k in 0..<pairs.count {
            var dot = 0.0
            for index in 0..<size { dot += pairs[k].y[index] * direction[index] }
            let beta = pairs[k].rho * dot
            for index in 0..<size { direction[index] += (alphas[k] - beta) * pairs[k].s[index] }
        }
    }

    /// One over the curvature along each price, floored per kind (vCPU, memory, storage, links) at a hundredth of
    /// the kind's mean so a price no cell is near a tie on still moves.
    private func scaling(_ into: inout [Double]) {
        var sums = [Double](repeating: 0, count: 4), counts = sums
        for index in curvature.indices where curvature[index] > 0 {
            let kind = index < 3 * clouds ? index % 3 : 3
            sums[kind] += curvature[index]
            counts[kind] += 1
        }
        let floors = (0..<4).map { counts[$0] > 0 ? 0.01 * sums[$0] / counts[$0] : 1 }
        for index in curvature.indices {
            into[index] = 1 / (curvature[index] + floors[index < 3 * clouds ? index % 3 : 3])
        }
    }

    private func clampToBox(_ dual: inout [Double]) {
        let links = 3 * clouds
        for index in 0..<links { dual[index] = max(0, dual[index]) }
        for link in 0..<linkPosition.count { dual[links + link] = min(linkSaving[link], max(0, dual[links + link])) }
    }
}
