/// A lower bound on the cheapest placement: capacity is moved into the objective with a price per unit in each
/// cloud, every cell is then placed on its own, and the prices are tuned by subgradient steps. Any prices give
/// a valid bound; the best one found is reported, and its prices steer the construction.
///
/// Egress between a service and a database depends on both their placements; the bound counts only what no
/// placement can avoid: the share of replicas that maxShare keeps out of any one cloud, at the lowest egress price.
struct LagrangianBound {
    var bound: Double
    var prices: Prices

    static func compute(_ problem: PlanningProblem, upperBound: Double, iterations: Int) -> LagrangianBound {
        let cloudCount = problem.clouds.count
        var constant = problem.cdns.reduce(0.0) { total, cdn in total + (cdn.allowed.map { cdn.cost[$0] }.min() ?? 0) }
        for service in problem.services {
            let replicas = Double(service.replicas)
            let kept = Double(max(0, service.replicas - service.maxPerCloud)) / replicas
            for edge in service.edges {
                let database = problem.databases[edge.cell]
                let cheapest = database.allowedPrimaries.map { primary in
                    problem.clouds[primary].egressGiB * (service.allowed.contains(primary) ? kept : 1)
                }.min() ?? 0
                constant += edge.trafficGiBMonth * cheapest
            }
        }
        var prices = Prices(perCloud: Array(repeating: .zero, count: cloudCount))
        var best = LagrangianBound(bound: -.infinity, prices: prices)
        var stepScale = 2.0
        var sinceImprovement = 0
        var candidates: [Optimizer.Candidate] = []
        for _ in 0..<iterations {
            var usage = [ResourceVector](repeating: .zero, count: cloudCount)
            var value = constant
            for index in problem.services.indices {
                // Fields read in place: copying the whole cell would retain every array it holds, per iteration.
                let unit = problem.services[index].perReplica, limit = problem.services[index].maxPerCloud
                candidates.removeAll(keepingCapacity: true)
                for cloud in problem.services[index].allowed {
                    candidates.append(Optimizer.Candidate(
                        cost: problem.services[index].replicaCost[cloud] + prices.cost(of: unit, in: cloud), cloud: cloud, limit: limit
                    ))
                }
                guard let slots = Optimizer.fill(
                    candidates, replicas: problem.services[index].replicas, minClouds: problem.services[index].minClouds
                ) else { return best }
                for slot in slots {
                    value += Double(slot.count) * (problem.services[index].replicaCost[slot.cloud] + prices.cost(of: unit, in: slot.cloud))
                    usage[slot.cloud] = usage[slot.cloud] + slot.count * unit
                }
            }
            for database in problem.databases {
                let choice = database.allowedPrimaries.map { cloud in
                    (cost: database.totalCost(primary: cloud) + prices.cost(of: database.demand, in: cloud), cloud: cloud)
                }.min { ($0.cost, $0.cloud) < ($1.cost, $1.cloud) }
                guard let choice else { return best }
                value += choice.cost
                usage[choice.cloud] = usage[choice.cloud] + database.demand
            }
            for cloud in 0..<cloudCount {
                value -= prices.cost(of: problem.clouds[cloud].capacity, in: cloud)
            }
            if !best.bound.isFinite || value > best.bound + 1e-9 * max(1, abs(best.bound)) {
                best = LagrangianBound(bound: value, prices: prices)
                sinceImprovement = 0
            } else {
                sinceImprovement += 1
                if sinceImprovement >= 8 {
                    stepScale /= 2
                    sinceImprovement = 0
                }
            }
            // Subgradient steps on the price of each cloud's whole capacity, in shares of that capacity, so
            // storage counted in thousands of GiB does not drown vCPU counted in tens.
            var gradient = [ResourceVector](repeating: .zero, count: cloudCount)
            var norm = 0.0
            for cloud in 0..<cloudCount {
                let capacity = problem.clouds[cloud].capacity
                let used = usage[cloud]
                let price = prices.perCloud[cloud]
                var g = ResourceVector(
                    cpu: Self.share(used.cpu, of: capacity.cpu), memory: Self.share(used.memory, of: capacity.memory),
                    storage: Self.share(used.storage, of: capacity.storage)
                )
                if price.cpu <= 0, g.cpu < 0 { g.cpu = 0 }
                if price.memory <= 0, g.memory < 0 { g.memory = 0 }
                if price.storage <= 0, g.storage < 0 { g.storage = 0 }
                gradient[cloud] = g
                norm += g.cpu * g.cpu + g.memory * g.memory + g.storage * g.storage
            }
            guard norm > 0, upperBound.isFinite, upperBound > value, stepScale > 1e-6 else { break }
            let step = stepScale * (upperBound - value) / norm
            for cloud in 0..<cloudCount {
                let capacity = problem.clouds[cloud].capacity
                let price = prices.perCloud[cloud], g = gradient[cloud]
                prices.perCloud[cloud] = ResourceVector(
                    cpu: max(0, price.cpu + step * g.cpu / max(capacity.cpu, 1)),
                    memory: max(0, price.memory + step * g.memory / max(capacity.memory, 1)),
                    storage: max(0, price.storage + step * g.storage / max(capacity.storage, 1))
                )
            }
        }
        return best
    }

    /// Use beyond capacity as a share of it: 0.1 is 10% over, -0.5 half empty.
    private static func share(_ used: Double, of capacity: Double) -> Double {
        capacity > 0 ? used / capacity - 1 : (used > 0 ? 1 : 0)
    }
}
