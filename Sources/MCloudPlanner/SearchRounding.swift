/// The relaxation's average layout around fixed primaries made whole. The annealing and the exchanges settle services
/// around their primaries a replica or a pair at a time and stop well short of the LP's layout there (the synthetic
/// input: 480,618 where HiGHS's LP around the same primaries is 467,606); rounded from the average and annealed
/// briefly, the same primaries cost 473,617.
extension Optimizer {
    /// The primaries as given, then each service in turn, within the room left: first those that lose most at
    /// `prices` by missing their cheapest cloud (the same order as `reinsertByRegret`, at prices, since at real
    /// costs every cheap cloud is wanted by all), each taking its cheapest clouds at `prices` less a replica's
    /// typical cost for each replica the average `replicas` put there. With the average alone the services that
    /// come late find its clouds full and scatter; at prices alone, services ranking clouds alike crowd into the
    /// same ones again (the synthetic input, in the trials: 474,042 and 474,418 against 473,066). Nil when a
    /// service cannot meet its spread even in empty clouds, which the feasibility checks rule out before.
    mutating func roundedLayout(primary: [Int], replicas average: [Double], prices: [ResourceVector]) -> PlacementState? {
        let clouds = problem.clouds.count
        reset()
        for (database, cloud) in primary.enumerated() where cloud >= 0 { placeDatabase(database, cloud) }
        let cheapest = problem.services.map { cell in cell.allowed.map { cell.replicaCost[$0] }.min() ?? 0 }
        let typical = cheapest.reduce(0, +) / Double(max(1, cheapest.count))
        func priced(_ service: Int, _ cloud: Int) -> Double {
            let cell = problem.services[service], price = prices[cloud]
            var cost = cell.replicaCost[cloud] + price.cpu * cell.perReplica.cpu + price.memory * cell.perReplica.memory
            for edge in cell.edges where state.primary[edge.cell] == cloud {
                cost -= edge.trafficGiBMonth * problem.clouds[cloud].egressGiB / Double(cell.replicas)
            }
            return cost
        }
        let regret = problem.services.indices.map { service in
            var first = Double.infinity, second = Double.infinity
            for cloud in problem.services[service].allowed {
                let cost = priced(service, cloud)
                if cost < first { (first, second) = (cost, first) } else if cost < second { second = cost }
            }
            return second.isFinite ? (second - first) * Double(problem.services[service].replicas) : .greatestFiniteMagnitude
        }
        var candidates: [Candidate] = []
        for service in problem.services.indices.sorted(by: { (regret[$1], $0) < (regret[$0], $1) }) {
            let cell = problem.services[service]
            candidates.removeAll(keepingCapacity: true)
            for cloud in cell.allowed {
                let limit = free(cloud).copies(of: cell.perReplica, limit: cell.maxPerCloud)
                guard limit > 0 else { continue }
                candidates.append(Candidate(cost: priced(service, cloud) - typical * average[service * clouds + cloud], cloud: cloud, limit: limit))
            }
            // Where the room left cannot take the service, its cheapest layout regardless: the annealing that
            // follows clears the overfill, as it does for the relaxation's start.
            guard let slots = Self.fill(candidates, replicas: cell.replicas, minClouds: cell.minClouds) ?? Self.cheapestIgnoringRoom(cell) else {
                return nil
            }
            place(service, slots)
        }
        return state
    }
}
