/// The LP's layout around fixed primaries made whole. The annealing and the exchanges settle services around their
/// primaries a replica or a pair at a time and stop well short of the LP's layout there; the bound's soft layout
/// around them, rounded here, repaired at its prices, annealed briefly and exchanged at length, comes much closer.
extension Optimizer {
    /// The primaries as given, then each service in turn with its whole expected replicas in `soft` (a row of clouds
    /// per service) and the rest rounded up where the fractions are largest, clouds with room first. Fractions
    /// within a rounding step of each other go first where the services before have taken least beyond their own
    /// expected replicas: the temperature splits a service evenly among clouds it ranks alike, and always rounding
    /// those ties the same way overfills the first of them; largest fractions first, plainly, overfills the cheap
    /// clouds several times as much.
    /// Clouds may end over capacity: `PenaltySearch.repair(prices:nearest:)` clears them.
    mutating func roundedLayout(primary: [Int], soft: [Double]) -> PlacementState {
        let clouds = problem.clouds.count
        reset()
        for (database, cloud) in primary.enumerated() where cloud >= 0 { placeDatabase(database, cloud) }
        // What the services placed so far took beyond their expected replicas, per cloud.
        var drift = [ResourceVector](repeating: .zero, count: clouds)
        for service in problem.services.indices {
            let cell = problem.services[service], unit = cell.perReplica
            let row = service * clouds
            var counts = [Int](repeating: 0, count: clouds)
            var left = cell.replicas
            var fractions: [(step: Double, drift: Double, cloud: Int)] = []
            for cloud in cell.allowed {
                let expected = soft[row + cloud]
                counts[cloud] = min(cell.maxPerCloud, Int((expected + 1e-6).rounded(.down)))
                left -= counts[cloud]
                let over = max(unit.cpu > 0 ? drift[cloud].cpu / unit.cpu : 0, unit.memory > 0 ? drift[cloud].memory / unit.memory : 0)
                fractions.append((((expected - Double(counts[cloud])) / Self.roundingStep).rounded(), over, cloud))
            }
            fractions.sort { ($1.step, $0.drift, $0.cloud) < ($0.step, $1.drift, $1.cloud) }
            for roomOnly in [true, false] {
                for fraction in fractions where left > 0 && counts[fraction.cloud] < cell.maxPerCloud {
                    let cloud = fraction.cloud
                    if roomOnly {
                        guard soft[row + cloud] > Self.roundingFloor, ((counts[cloud] + 1) * unit).fits(within: free(cloud)) else { continue }
                    }
                    counts[cloud] += 1
                    left -= 1
                }
            }
            // Spread: a replica from the fullest cloud to the most expected unused one until enough clouds are used.
            var used = cell.allowed.filter { counts[$0] > 0 }
            while used.count < cell.minClouds,
                  let fullest = used.max(by: { (counts[$0], $1) < (counts[$1], $0) }), counts[fullest] > 1,
                  let spare = fractions.first(where: { counts[$0.cloud] == 0 })?.cloud {
                counts[fullest] -= 1
                counts[spare] = 1
                used.append(spare)
            }
            for cloud in cell.allowed {
                let change = Double(counts[cloud]) - soft[row + cloud]
                drift[cloud] = drift[cloud] + ResourceVector(cpu: change * unit.cpu, memory: change * unit.memory, storage: 0)
            }
            place(service, cell.allowed.filter { counts[$0] > 0 }.map { Slot(cloud: $0, count: counts[$0]) })
        }
        return state
    }

    /// Fractions are compared in steps of this size; within one, the cloud the services before overfilled least wins.
    /// A fifth keeps the rounding's cost of finer steps at less than half their overfill.
    static let roundingStep = 0.2
    /// The first round-ups go only to clouds with room where the service is expected at least this much.
    static let roundingFloor = 0.02
}
