import MCloudCore
@testable import MCloudPlanner
import MCloudSynthetic
import Testing

/// The services laid afresh around fixed primaries: the bound around them stays a bound, its soft layout keeps every
/// service whole, the rounding places every replica within spread beside the primaries it was given, and the repair
/// brings every cloud back within capacity.
@Suite struct RelayoutTests {
    /// A generated input and the greedy's placement of it.
    static func placed() throws -> (PlanningProblem, PlacementState) {
        let problem = try BoundShareTests.problem()
        var optimizer = Optimizer(problem: problem, budget: 10_000, seed: 1)
        #expect(optimizer.construct(order: optimizer.initialOrder(), rounds: 25).isEmpty)
        return (problem, optimizer.state)
    }

    /// The bound with the greedy's primaries fixed, solved briefly, and its soft layout.
    static func soft(_ problem: PlanningProblem, _ placement: PlacementState) -> (LagrangianBound.Result, [Double]) {
        var around = LagrangianBound(problem.fixingPrimaries(placement.primary))
        let prices = [ResourceVector](repeating: .zero, count: problem.clouds.count)
        let result = around.solve(from: around.start(prices: prices, primary: placement.primary), upperBound: 1e6, evaluations: 40)
        return (result, around.softReplicas(result.dual, temperature: result.temperature))
    }

    /// The cost of a placement, as the annealing counts it.
    static func cost(_ problem: PlanningProblem, _ placement: PlacementState) -> Double {
        PenaltySearch(problem: problem, start: placement, seed: 1, targets: problem.services.map(\.allowed)).cost
    }

    @Test func theBoundAroundFixedPrimariesIsNeverAboveAPlacementWithThem() throws {
        let (problem, placement) = try Self.placed()
        let (result, _) = Self.soft(problem, placement)
        #expect(result.value <= Self.cost(problem, placement) + 1e-6)
        // Fixing the primaries only removes choices, so its bound is at least the whole problem's at the same prices.
        var whole = LagrangianBound(problem)
        let prices = [ResourceVector](repeating: .zero, count: problem.clouds.count)
        #expect(whole.evaluate(whole.start(prices: prices, primary: placement.primary)) <= result.value + 1e-6)
    }

    @Test func theSoftLayoutGivesEveryServiceItsReplicasInAllowedCloudsWithinSpread() throws {
        let (problem, placement) = try Self.placed()
        let (_, soft) = Self.soft(problem, placement)
        let clouds = problem.clouds.count
        #expect(soft.count == problem.services.count * clouds)
        for (service, cell) in problem.services.enumerated() {
            let row = soft[(service * clouds)..<((service + 1) * clouds)]
            #expect(abs(row.reduce(0, +) - Double(cell.replicas)) <= 1e-6, "service \(service)")
            for (cloud, replicas) in row.enumerated() {
                #expect(replicas >= 0 && replicas <= Double(cell.maxPerCloud) + 1e-6, "service \(service), cloud \(cloud)")
                if replicas > 0 { #expect(cell.allowed.contains(cloud), "service \(service), cloud \(cloud)") }
            }
        }
    }

    @Test func theRoundedLayoutKeepsThePrimariesAndPlacesEveryReplicaWithinSpread() throws {
        let (problem, placement) = try Self.placed()
        let (_, soft) = Self.soft(problem, placement)
        var rounder = Optimizer(problem: problem, budget: 0, seed: 1)
        let rounded = rounder.roundedLayout(primary: placement.primary, soft: soft)
        #expect(rounded.primary == placement.primary)
        for (service, cell) in problem.services.enumerated() {
            let slots = rounded.replicas[service]
            #expect(slots.reduce(0) { $0 + $1.count } == cell.replicas, "service \(service)")
            #expect(slots.count >= cell.minClouds, "service \(service)")
            #expect(slots.allSatisfy { $0.count <= cell.maxPerCloud && cell.allowed.contains($0.cloud) }, "service \(service)")
        }
    }

    @Test func theRepairAtPricesClearsEveryOverloadAndKeepsSpread() throws {
        let (problem, placement) = try Self.placed()
        // Every service at its cheapest clouds regardless of room: the cheap clouds overfill.
        var crowded = placement
        for (service, cell) in problem.services.enumerated() {
            crowded.replicas[service] = try #require(Optimizer.cheapestIgnoringRoom(cell))
        }
        var repaired = PenaltySearch(problem: problem, start: crowded, seed: 1, targets: problem.services.map(\.allowed))
        #expect(!repaired.isFeasible)
        let (result, _) = Self.soft(problem, placement)
        repaired.repair(prices: result.prices, nearest: 8)
        #expect(repaired.isFeasible)
        Self.expectWithinRules(problem, repaired.placement, primary: placement.primary)
    }

    /// What the placement's primaries and replicas take from each cloud.
    static func usage(_ problem: PlanningProblem, _ placement: PlacementState) -> [ResourceVector] {
        var usage = [ResourceVector](repeating: .zero, count: problem.clouds.count)
        for (database, cloud) in placement.primary.enumerated() { usage[cloud] = usage[cloud] + problem.databases[database].demand }
        for (service, slots) in placement.replicas.enumerated() {
            for slot in slots { usage[slot.cloud] = usage[slot.cloud] + slot.count * problem.services[service].perReplica }
        }
        return usage
    }

    /// The primaries as given, every service whole and within spread in clouds it may use, every cloud within capacity.
    static func expectWithinRules(_ problem: PlanningProblem, _ placement: PlacementState, primary: [Int]) {
        #expect(placement.primary == primary)
        for (service, cell) in problem.services.enumerated() {
            let slots = placement.replicas[service]
            #expect(slots.reduce(0) { $0 + $1.count } == cell.replicas, "service \(service)")
            #expect(slots.count >= cell.minClouds, "service \(service)")
            #expect(slots.allSatisfy { $0.count <= cell.maxPerCloud && cell.allowed.contains($0.cloud) }, "service \(service)")
        }
        let usage = Self.usage(problem, placement)
        for cloud in problem.clouds.indices {
            #expect(usage[cloud].fits(within: problem.clouds[cloud].capacity), "cloud \(cloud)")
        }
    }
}
