public import MCloudCore

/// Places every cell of a validated model: pure, deterministic, explained.
public enum Planner {
    public struct Options: Sendable {
        /// Local-search work in cells placed; nil sizes it to the problem.
        public var budget: Int?
        /// Subgradient iterations for the lower bound.
        public var boundIterations: Int
        /// Every cell's reasons for every unused cloud; a benchmark of the search alone can leave them out.
        public var explanations: Bool

        public init(budget: Int? = nil, boundIterations: Int = 60, explanations: Bool = true) {
            self.budget = budget
            self.boundIterations = boundIterations
            self.explanations = explanations
        }
    }

    public static func plan(_ model: Model, options: Options = Options()) -> Result<PlacementPlan, PlacementFailure> {
        let problem = PlanningProblem(model: model)
        let failures = Feasibility.staticFailures(problem)
        guard failures.isEmpty else { return .failure(PlacementFailure(cells: failures)) }

        let cellCount = problem.services.count + problem.databases.count
        // A step costs about one pass over the clouds, so the work allowed shrinks as clouds grow: up to 1,000
        // steps a cell on small inputs, about a second of search on the largest.
        let budget = options.budget ?? max(100_000, min(1_000 * cellCount, 20_000_000 / max(1, problem.clouds.count)))
        // Each start descends on a tenth of the work; the annealing from the best of them gets the rest.
        let startBudget = budget / 10
        let seed = SplitMix64.seed(from: model.cells.map(\.name) + model.clouds.map(\.name))
        var optimizer = Optimizer(problem: problem, budget: startBudget, seed: seed)
        let order = optimizer.initialOrder()
        let stuck = optimizer.construct(order: order, prices: nil, rounds: 25)
        guard stuck.isEmpty else {
            return .failure(PlacementFailure(cells: Feasibility.capacityFailures(stuck, optimizer: optimizer)))
        }
        optimizer.descend()
        var best = optimizer.state
        var bestCost = optimizer.totalCost
        var steps = optimizer.steps

        // The bound's capacity prices say which cells deserve the scarce cheap capacity; placements built
        // under them, at a few strengths, are the starting points for the search.
        let bound = LagrangianBound.compute(problem, upperBound: bestCost, iterations: options.boundIterations)
        for scale in [1.0, 0.7, 1.3] {
            var guided = Optimizer(problem: problem, budget: startBudget, seed: seed)
            guard guided.construct(order: order, prices: bound.prices.scaled(by: scale), rounds: 25).isEmpty else { continue }
            guided.descend()
            steps += guided.steps
            if guided.totalCost < bestCost - Optimizer.tolerance(bestCost) {
                best = guided.state
                bestCost = guided.totalCost
            }
        }
        var search = Optimizer(problem: problem, budget: max(0, budget - steps), seed: seed &+ 1)
        search.adopt(best)
        search.improve()
        steps += search.steps
        if search.totalCost < bestCost - Optimizer.tolerance(bestCost) {
            best = search.state
        }
        optimizer.adopt(best)
        return .success(PlanBuilder(problem: problem, optimizer: optimizer, lowerBound: min(bound.bound, bestCost), steps: steps).plan(explanations: options.explanations))
    }
}
