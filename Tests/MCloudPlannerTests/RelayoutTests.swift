import MCloudCore
@testable import MCloudPlanner
import MCloudSynthetic
import Testing

/// The services laid afresh around fixed primaries: the relaxation's average layout keeps every service whole, and
/// its rounding places every replica within spread, at allowed clouds, beside the primaries it was given.
@Suite struct RelayoutTests {
    /// A generated input and the greedy's placement of it.
    static func placed() throws -> (PlanningProblem, PlacementState) {
        let problem = try BoundShareTests.problem()
        var optimizer = Optimizer(problem: problem, budget: 10_000, seed: 1)
        #expect(optimizer.construct(order: optimizer.initialOrder(), rounds: 25).isEmpty)
        return (problem, optimizer.state)
    }

    @Test func theAverageLayoutGivesEveryServiceItsReplicasInAllowedCloudsWithinSpread() throws {
        let (problem, placement) = try Self.placed()
        var relaxation = Relaxation(problem)
        let prices = [ResourceVector](repeating: .zero, count: problem.clouds.count)
        let layout = relaxation.layout(primary: placement.primary, prices: prices, upperBound: 1e6, iterations: 60)
        let clouds = problem.clouds.count
        #expect(layout.replicas.count == problem.services.count * clouds)
        for (service, cell) in problem.services.enumerated() {
            let row = layout.replicas[(service * clouds)..<((service + 1) * clouds)]
            #expect(abs(row.reduce(0, +) - Double(cell.replicas)) <= 1e-9, "service \(service)")
            for (cloud, replicas) in row.enumerated() {
                #expect(replicas >= 0 && replicas <= Double(cell.maxPerCloud) + 1e-9, "service \(service), cloud \(cloud)")
                if replicas > 0 { #expect(cell.allowed.contains(cloud), "service \(service), cloud \(cloud)") }
            }
        }
    }

    @Test func theRoundedLayoutKeepsThePrimariesAndPlacesEveryReplicaWithinSpreadAndCapacity() throws {
        let (problem, placement) = try Self.placed()
        var relaxation = Relaxation(problem)
        let layout = relaxation.layout(
            primary: placement.primary, prices: [ResourceVector](repeating: .zero, count: problem.clouds.count), upperBound: 1e6, iterations: 60
        )
        var rounder = Optimizer(problem: problem, budget: 0, seed: 1)
        let result = rounder.roundedLayout(primary: placement.primary, replicas: layout.replicas, prices: layout.prices)
        let rounded = try #require(result)
        #expect(rounded.primary == placement.primary)
        for (service, cell) in problem.services.enumerated() {
            let slots = rounded.replicas[service]
            #expect(slots.reduce(0) { $0 + $1.count } == cell.replicas, "service \(service)")
            #expect(slots.count >= cell.minClouds, "service \(service)")
            #expect(slots.allSatisfy { $0.count <= cell.maxPerCloud && cell.allowed.contains($0.cloud) }, "service \(service)")
        }
        // The greedy fitted this input with room to spare, so the rounding never needs to overfill.
        for cloud in problem.clouds.indices {
            #expect(rounded.usage[cloud].fits(within: problem.clouds[cloud].capacity), "cloud \(cloud)")
        }
    }
}
