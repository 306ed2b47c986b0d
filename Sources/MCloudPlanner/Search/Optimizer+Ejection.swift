/// Moves of database primaries that make room where there is none. In the cheap clouds every vCPU is taken,
/// so a primary can only move there if service replicas leave first: a plain relocation never sees that trade,
/// and neither does a ruin of random cells, which rarely frees exactly the right ones.
extension Optimizer {
    /// Moves each database to its cloud; where the cloud lacks room and `evicting` is set, evicts the service cells
    /// that lose least by leaving, enough for the primary and its followers when that can be done, else for the primary. Every evicted service, and every service talking to a moved database, then goes back by regret.
    /// Kept when cheaper, or with probability exp(-delta/temperature); returns the change in cost, or nil when undone.
    mutating func relocate(_ moves: [(database: Int, cloud: Int)], evicting: Bool = true, temperature: Double) -> Double? {
        touched.clear()
        var services: [Int] = []
        for move in moves {
            for service in problem.databases[move.database].connectedServices where touched.insert(service) {
                services.append(service)
            }
        }
        let databases = moves.map(\.database)
        var before = localCost(services: services, databases: databases)
        var snapshot = remove(services: services, databases: databases)
        var placed = true
        for move in moves where placed {
            let demand = problem.databases[move.database].demand
            // Room for the primary and for the replicas that follow it to save egress, as many as spread allows.
            var need = demand
            if evicting {
                for service in problem.databases[move.database].connectedServices where problem.services[service].replicaCost[move.cloud].isFinite {
                    let cell = problem.services[service]
                    need = need + min(cell.maxPerCloud, cell.replicas) * cell.perReplica
                }
            }
            if !need.fits(within: free(move.cloud)) {
                guard evicting, let evicted = evictionCandidates(from: move.cloud, toFit: need) ?? evictionCandidates(from: move.cloud, toFit: demand) else {
                    placed = false
                    break
                }
                for service in evicted {
                    touched.insert(service)
                    before += serviceCost(service)
                    snapshot.services.append((service, unplace(service)))
                    services.append(service)
                }
            }
            placeDatabase(move.database, move.cloud)
        }
        steps += services.count + databases.count
        if placed, reinsertByRegret(services: services, databases: []) {
            let delta = localCost(services: services, databases: databases) - before
            if accepts(delta, scale: before, temperature: temperature) { return delta }
        }
        restore(snapshot)
        return nil
    }

    /// Moves replicas of `service` into `cloud`, a cheaper cloud without room, by evicting the service cells there
    /// that lose least by leaving; the service is re-placed first, the evicted cells after it by regret. The other
    /// half of an ejection chain: what must leave a cheap cloud for a cell that can live nowhere else cheap.
    mutating func pull(_ service: Int, into cloud: Int, temperature: Double) -> Double? {
        let cell = problem.services[service]
        let present = state.count(of: service, in: cloud)
        let wanted = min(cell.maxPerCloud, cell.replicas) - present
        guard wanted > 0 else { return nil }
        touched.clear()
        touched.insert(service)
        var before = serviceCost(service)
        var snapshot = remove(services: [service], databases: [])
        let need = wanted * cell.perReplica
        var evicted: [Int] = []
        if !need.fits(within: free(cloud)) {
            guard let candidates = evictionCandidates(from: cloud, toFit: need) else {
                restore(snapshot)
                return nil
            }
            evicted = candidates
        }
        for other in evicted {
            touched.insert(other)
            before += serviceCost(other)
            snapshot.services.append((other, unplace(other)))
        }
        steps += 1 + evicted.count
        if insert(.service(service)), reinsertByRegret(services: evicted, databases: []) {
            let delta = localCost(services: [service] + evicted, databases: []) - before
            if accepts(delta, scale: before, temperature: temperature) { return delta }
        }
        restore(snapshot)
        return nil
    }

    /// `pull` into the primary cloud of `database`, when the service may use that cloud.
    mutating func pull(_ service: Int, nextTo database: Int, temperature: Double) -> Double? {
        let cloud = state.primary[database]
        guard cloud >= 0, problem.services[service].replicaCost[cloud].isFinite else { return nil }
        return pull(service, into: cloud, temperature: temperature)
    }

    /// A random pull for the annealing: a random service cell into one of its allowed clouds cheaper than the
    /// dearest it uses now.
    mutating func randomPull(temperature: Double) -> Double? {
        guard !problem.services.isEmpty else { return nil }
        let service = Int.random(in: 0..<problem.services.count, using: &random)
        let cell = problem.services[service]
        // Half the time towards the primary of one of its databases, where its replicas save the edge's egress.
        if Bool.random(using: &random), let edge = cell.edges.randomElement(using: &random) {
            return pull(service, nextTo: edge.cell, temperature: temperature)
        }
        let dearest = state.replicas[service].reduce(-Double.infinity) { max($0, cell.replicaCost[$1.cloud]) }
        let cheaper = cell.allowed.filter { cell.replicaCost[$0] < dearest && state.count(of: service, in: $0) < cell.maxPerCloud }
        guard let cloud = cheaper.randomElement(using: &random) else { return nil }
        return pull(service, into: cloud, temperature: temperature)
    }

    /// The service cells to take out of `cloud` so that `demand` fits, cheapest to move per unit of the shortfall
    /// first; nil when even all of them would not make room. A cell's price of leaving is what one replica costs
    /// more in its cheapest other cloud with room.
    func evictionCandidates(from cloud: Int, toFit demand: ResourceVector) -> [Int]? {
        let shortfall = demand - free(cloud)
        var scored: [(score: Double, service: Int, freed: ResourceVector)] = []
        for item in members.members(of: cloud) where item < problem.services.count && !touched.contains(item) {
            let cell = problem.services[item]
            let count = state.count(of: item, in: cloud)
            let freed = count * cell.perReplica
            let useful = Self.coverage(freed, of: shortfall)
            guard useful > 0 else { continue }
            var alternative = Double.infinity
            for other in cheapestClouds[item] where other != cloud && cell.perReplica.fits(within: free(other)) {
                alternative = cell.replicaCost[other]
                break
            }
            let loss = alternative.isFinite ? (alternative - cell.replicaCost[cloud]) * Double(count) : .greatestFiniteMagnitude
            scored.append((loss / useful, item, freed))
        }
        scored.sort { ($0.score, $0.service) < ($1.score, $1.service) }
        var freed = ResourceVector.zero
        var chosen: [Int] = []
        for candidate in scored {
            chosen.append(candidate.service)
            freed = freed + candidate.freed
            if shortfall.fits(within: freed) { return chosen }
        }
        return nil
    }

    /// How much of each short resource `freed` covers, summed over the short ones: 1 per resource fully covered.
    static func coverage(_ freed: ResourceVector, of shortfall: ResourceVector) -> Double {
        var total = 0.0
        if shortfall.cpu > ResourceVector.epsilon { total += min(freed.cpu, shortfall.cpu) / shortfall.cpu }
        if shortfall.memory > ResourceVector.epsilon { total += min(freed.memory, shortfall.memory) / shortfall.memory }
        if shortfall.storage > ResourceVector.epsilon { total += min(freed.storage, shortfall.storage) / shortfall.storage }
        return total
    }

    /// A random relocation or swap of primaries for the annealing: one database to one of its few cheapest clouds,
    /// and half the time a database from there back to where the first one was. A dearer cloud rarely pays, and
    /// each try re-places many services.
    mutating func randomRelocation(temperature: Double) -> Double? {
        guard !problem.databases.isEmpty else { return nil }
        let database = Int.random(in: 0..<problem.databases.count, using: &random)
        let current = state.primary[database]
        let targets = cheapestPrimaries[database].filter { $0 != current }
        guard current >= 0, let target = targets.randomElement(using: &random) else { return nil }
        var moves = [(database: database, cloud: target)]
        if Bool.random(using: &random) {
            let partners = members.members(of: target).filter { item in
                item >= problem.services.count && problem.databases[item - problem.services.count].primaryCost[current].isFinite
            }
            if let partner = partners.randomElement(using: &random) {
                moves.append((partner - problem.services.count, current))
            }
        }
        return relocate(moves, temperature: temperature)
    }
}
