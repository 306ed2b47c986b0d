import MCloudCore
@testable import MCloudPlanner
import Testing

/// Exchanges of replicas around fixed primaries, in both sweeps: they keep every rule, never raise the cost, and a
/// thorough one run out leaves no replica a cheaper cloud with room.
@Suite struct ExchangeTests {
    /// The greedy's placement exchanged with `work`, and the cost it started from.
    static func exchanged(_ sweep: PenaltySearch.Sweep, work: Int) throws -> (PlanningProblem, PlacementState, before: Double, after: Double) {
        let (problem, placement) = try RelayoutTests.placed()
        var search = PenaltySearch(problem: problem, start: placement, seed: 1, targets: problem.services.map(\.allowed))
        let before = search.cost
        search.exchange(work: work, sweep: sweep)
        return (problem, search.placement, before, search.cost)
    }

    @Test(arguments: [PenaltySearch.Sweep.settling, .thorough])
    func exchangesKeepCapacitySpreadAndPrimariesAndNeverRaiseTheCost(_ sweep: PenaltySearch.Sweep) throws {
        let (problem, placement) = try RelayoutTests.placed()
        let (_, exchanged, before, after) = try Self.exchanged(sweep, work: 1_000_000)
        #expect(after < before - 1, "the greedy's placement leaves exchanges that pay")
        #expect(abs(after - RelayoutTests.cost(problem, exchanged)) <= 1e-6 * after)
        RelayoutTests.expectWithinRules(problem, exchanged, primary: placement.primary)
    }

    @Test func aThoroughExchangeRunOutLeavesNoReplicaACheaperCloudWithRoom() throws {
        let (problem, exchanged, _, after) = try Self.exchanged(.thorough, work: 100_000_000)
        let usage = RelayoutTests.usage(problem, exchanged)
        for (service, cell) in problem.services.enumerated() {
            let slots = exchanged.replicas[service]
            for from in slots {
                for to in cell.allowed where to != from.cloud && cell.perReplica.fits(within: problem.clouds[to].capacity - usage[to]) {
                    let there = slots.first { $0.cloud == to }?.count ?? 0
                    // Spread: at most maxPerCloud in a cloud, and a cloud left empty only while enough others stay in use.
                    guard there < cell.maxPerCloud, from.count > 1 || there == 0 || slots.count > cell.minClouds else { continue }
                    var moved = exchanged
                    moved.replicas[service] = slots.compactMap { slot in
                        slot.cloud == from.cloud ? (slot.count > 1 ? Slot(cloud: slot.cloud, count: slot.count - 1) : nil) : slot
                    }
                    if let at = moved.replicas[service].firstIndex(where: { $0.cloud == to }) {
                        moved.replicas[service][at].count += 1
                    } else {
                        moved.replicas[service].append(Slot(cloud: to, count: 1))
                    }
                    let cost = RelayoutTests.cost(problem, moved)
                    #expect(cost >= after - Optimizer.tolerance(after), "service \(service): \(from.cloud) -> \(to) saves \(after - cost)")
                }
            }
        }
    }
}
