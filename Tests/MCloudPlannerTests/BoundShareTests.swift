import Foundation
import MCloudCore
@testable import MCloudPlanner
import MCloudSynthetic
import Testing

/// The lower bound's services run in shares at once on large inputs, and its soft minimum takes closed forms for
/// sets of one or two: several shares give one share's function and gradient up to rounding and the same bits on
/// every run, and the closed forms give the recursion's bits.
@Suite struct BoundShareTests {
    static func problem() throws -> PlanningProblem {
        let input = FilterConsistencyTests.Input.generated(SyntheticInstance.Size(clouds: 20, services: 60, databases: 12), seed: 3)
        return PlanningProblem(model: try #require(input.model()))
    }

    /// Prices inside the box with every kind in play: capacity priced, links credited at each database's first primary.
    static func start(_ bound: inout LagrangianBound, _ problem: PlanningProblem) -> [Double] {
        let prices = problem.clouds.indices.map { ResourceVector(cpu: 3 + Double($0 % 5), memory: 0.4, storage: 0.01 * Double($0 % 3)) }
        return bound.start(prices: prices, primary: problem.databases.map { $0.allowedPrimaries.first ?? 0 })
    }

    @Test(arguments: [2, 3])
    func sharesGiveOneSharesFunctionAndGradientUpToRounding(_ shares: Int) throws {
        let problem = try Self.problem()
        var one = LagrangianBound(problem, shares: 1), several = LagrangianBound(problem, shares: shares)
        let dual = Self.start(&one, problem)
        #expect(Self.start(&several, problem) == dual)
        let exact = one.evaluate(dual)
        #expect(abs(several.evaluate(dual) - exact) <= 1e-9 * abs(exact))
        for temperature in [10.0, 0.1, 0.001] {
            var gradient = [Double](repeating: 0, count: one.dimension), sharedGradient = gradient
            let value = one.smoothed(dual, temperature: temperature, gradient: &gradient)
            let shared = several.smoothed(dual, temperature: temperature, gradient: &sharedGradient)
            #expect(value <= exact + 1e-9 * abs(exact))
            #expect(abs(shared - value) <= 1e-9 * abs(value), "temperature \(temperature)")
            let scale = gradient.map(abs).max() ?? 1
            #expect(zip(gradient, sharedGradient).allSatisfy { abs($0 - $1) <= 1e-9 * scale }, "temperature \(temperature)")
        }
    }

    @Test func theSameSharesGiveTheSameBitsOnEveryRun() throws {
        let problem = try Self.problem()
        var first = LagrangianBound(problem, shares: 2), second = LagrangianBound(problem, shares: 2)
        let dual = Self.start(&first, problem)
        _ = Self.start(&second, problem)
        let results = [first.solve(from: dual, upperBound: 1e5, evaluations: 40), second.solve(from: dual, upperBound: 1e5, evaluations: 40)]
        #expect(results[0].value == results[1].value)
        #expect(results[0].prices == results[1].prices)
    }

    @Test(arguments: [1, 2])
    func closedFormsGiveTheRecursionsBits(_ left: Int) {
        var random = SplitMix64(seed: UInt64(left))
        for count in [1, 2, 3, 7, 40] {
            // Weights as the soft minimum makes them: e^-shift for shifts within 25 of the threshold either way.
            let weights = (0..<count).map { _ in exp(-(Double(random.next() % 50_000) / 1_000 - 25)) }
            var forward: [Double] = [], backward: [Double] = []
            var suffix = [Double](repeating: 0, count: count + 1)
            var closed = weights, general = weights
            var closedSpan = closed.mutableSpan, generalSpan = general.mutableSpan, suffixSpan = suffix.mutableSpan
            let closedTotal = left == 1
                ? SoftSets.chancesOfOne(&closedSpan, count: count) : SoftSets.chancesOfTwo(&closedSpan, count: count, suffix: &suffixSpan)
            let generalTotal = SoftSets.recursion(&generalSpan, count: count, left: left, forward: &forward, backward: &backward)
            #expect(closedTotal == generalTotal, "\(count) weights")
            #expect(closed == general, "\(count) weights")
        }
    }
}
