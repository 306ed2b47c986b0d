import Foundation
import MCloudCore
import MCloudManifest
@testable import MCloudPlanner
import Testing

/// The bound climbed further on a thread of its own: it goes on from the prices it is given and stays a true bound,
/// gives the same bits on every run whatever the threads do, and leaves the bound it was copied from as it was.
@Suite struct BoundContinuationTests {
    /// c20_s100_d20_k2, whose LP relaxation (26,444.6094, HiGHS) no bound of this kind may exceed there.
    static func problem() throws -> PlanningProblem {
        let directory = "\(LowerBoundTests.root)/Tests/MCloudPlannerTests/Fixtures/bench/c20_s100_d20_k2"
        let model = try #require(ManifestLoader.load(paths: [directory + "/Manifests"], providers: directory + "/Providers").model)
        return PlanningProblem(model: model)
    }

    static let relaxation = 26_444.6094

    /// A few evaluations from zero prices: a bound well short of the LP's, as the largest inputs' floor leaves it.
    static func shortBound(_ problem: PlanningProblem) -> (LagrangianBound, LagrangianBound.Result) {
        var bound = LagrangianBound(problem, shares: 2)
        let prices = [ResourceVector](repeating: .zero, count: problem.clouds.count)
        let start = bound.start(prices: prices, primary: problem.databases.map { $0.allowedPrimaries.first ?? 0 })
        return (bound, bound.solve(from: start, upperBound: 30_000, evaluations: 8))
    }

    @Test func theContinuedBoundRisesFromTheBestPricesAndStaysBelowTheLP() throws {
        let problem = try Self.problem()
        let (bound, short) = Self.shortBound(problem)
        let continued = BoundContinuation(bound, from: short.dual, upperBound: 30_000).value()
        #expect(continued >= short.value * (1 - 1e-9), "continued \(continued) below its start \(short.value)")
        // From such prices a cold phase's first step, scaled by the curvature alone, is far too long: it must shorten it
        // until it gains rather than give the phase up.
        #expect(continued > short.value * 1.01, "continued \(continued) gained nothing on \(short.value)")
        #expect(continued <= Self.relaxation * (1 + 1e-7), "continued \(continued) above the LP relaxation \(Self.relaxation)")
    }

    @Test func theContinuationGivesTheSameBitsOnEveryRunAndLeavesItsSourceAsItWas() throws {
        let problem = try Self.problem()
        var (bound, short) = Self.shortBound(problem)
        let runs = [BoundContinuation(bound, from: short.dual, upperBound: 30_000), BoundContinuation(bound, from: short.dual, upperBound: 30_000)]
        #expect(bound.evaluate(short.dual) == short.value)
        let values = runs.map { $0.value() }
        #expect(values[0] == values[1])
        #expect(runs[0].value() == values[0], "a second look waits for nothing and gives the same value")
    }
}
