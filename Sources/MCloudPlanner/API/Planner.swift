public import MCloudCore

/// Places every cell of a validated model: pure, deterministic, explained.
public enum Planner {
    public struct Options: Sendable {
        /// Local-search work in cells placed; nil sizes it to the problem.
        public var budget: Int?
        /// Evaluations of the dual function for the lower bound; nil sizes them to the problem.
        public var boundEvaluations: Int?
        /// Every cell's reasons for every unused cloud; a benchmark of the search alone can leave them out.
        public var explanations: Bool
        /// Clouds to place as if they were gone, by name: a what-if, or the placement a failover moves to.
        public var lost: Set<String>
        /// Cells (and CDNs) left out of the placement, by name: what a what-if could not place, so the rest still shows.
        public var leftOut: Set<String>

        public init(budget: Int? = nil, boundEvaluations: Int? = nil, explanations: Bool = true, lost: Set<String> = [], leftOut: Set<String> = []) {
            self.budget = budget
            self.boundEvaluations = boundEvaluations
            self.explanations = explanations
            self.lost = lost
            self.leftOut = leftOut
        }
    }

    /// The placement, or the cells that cannot be placed, each with the hints that were checked to place it.
    public static func plan(_ model: Model, options: Options = Options()) -> Result<PlacementPlan, PlacementFailure> {
        let unrestricted = PlanningProblem(model: model, lost: options.lost, leftOut: options.leftOut)
        let locality = Locality(unrestricted)
        var problem = unrestricted
        problem.restrictLocality(locality)
        var plan: PlacementPlan
        switch place(problem, model, options: options) {
        case .success(let placed): plan = placed
        case .failure(let failure): return .failure(HintCheck(model: model, options: options).verified(failure))
        }
        // The first bound is of the problem with only the clouds every placement meeting the rules leaves out: the
        // pairwise rules dropped, a relaxation, so a bound of every placement that meets them. The problems placed
        // after it keep some cells where they are, which any placement need not, so their bounds are not.
        let lowerBound = plan.cost.lowerBound
        var exclusions: [Locality.Exclusion] = []
        while let broken = locality.broken(plan) {
            // Every way rules out a cloud of the broken pair, so each round leaves fewer clouds and the rounds end.
            // The cheapest way that places is kept.
            var next: (plan: PlacementPlan, problem: PlanningProblem, exclusions: [Locality.Exclusion])?
            var firstFailure: PlacementFailure?
            for separation in locality.separations(broken.edge, plan, problem) {
                var separated = unrestricted
                separated.restrictLocality(locality, exclusions: exclusions + separation)
                switch place(separated, model, options: options) {
                case .success(let placed):
                    if next.map({ placed.cost.monthly < $0.plan.cost.monthly - Optimizer.tolerance($0.plan.cost.monthly) }) ?? true {
                        next = (placed, separated, exclusions + separation)
                    }
                case .failure(let failure):
                    firstFailure = firstFailure ?? failure
                }
            }
            // No cloud alone rules the edge out, so this is the search's limit, said first; what each way then
            // failed on follows.
            guard let next else {
                let unmet = locality.unmet(broken.edge, from: broken.from, to: broken.to, ms: broken.ms)
                return .failure(HintCheck(model: model, options: options).verified(PlacementFailure(cells: [unmet] + (firstFailure?.cells ?? []))))
            }
            (plan, problem, exclusions) = next
        }
        plan.cost.lowerBound = min(lowerBound, plan.cost.monthly)
        plan.cost.gap = plan.cost.monthly > 0 ? max(0, (plan.cost.monthly - plan.cost.lowerBound) / plan.cost.monthly) : 0
        plan.warnings = locality.warnings(plan)
        return .success(plan)
    }

    /// The problem with the clouds `maxLatencyMs` rules out already taken away, and the hints for cells it strands.
    static func restricted(_ model: Model, lost: Set<String>, leftOut: Set<String>) -> PlanningProblem {
        var problem = PlanningProblem(model: model, lost: lost, leftOut: leftOut)
        problem.restrictLocality(Locality(problem))
        return problem
    }

    /// The cells that cannot be placed, by name: the static filters (with what the latency rules rule out), then the
    /// construction with capacity. No search, no explanations, no hints: what `HintCheck` asks of every hint.
    static func unplaceable(_ model: Model, lost: Set<String>, leftOut: Set<String>) -> [String] {
        let problem = restricted(model, lost: lost, leftOut: leftOut)
        let failures = Feasibility.staticFailures(problem)
        guard failures.isEmpty else { return failures.map(\.cell) }
        var optimizer = Optimizer(problem: problem, budget: 0, seed: 0)
        let stuck = optimizer.construct(order: optimizer.initialOrder(), rounds: 25)
        return Feasibility.capacityFailures(stuck, optimizer: optimizer).map(\.cell)
    }

    /// One placement of a problem whose clouds are already restricted: search, bound and explanations.
    private static func place(_ problem: PlanningProblem, _ model: Model, options: Options) -> Result<PlacementPlan, PlacementFailure> {
        let failures = Feasibility.staticFailures(problem)
        guard failures.isEmpty else { return .failure(PlacementFailure(cells: failures)) }

        let cellCount = problem.services.count + problem.databases.count
        // A step costs about one pass over the clouds, so the work allowed shrinks as clouds grow: up to 1,000
        // steps a cell on small inputs, about a second of search on the largest. Every phase below is sized by it;
        // a try at moving one replica costs a tenth of a step or less, so those get several times as many.
        let budget = options.budget ?? max(100_000, min(1_000 * cellCount, 20_000_000 / max(1, problem.clouds.count)))
        let seed = SplitMix64.seed(from: model.cells.map(\.name) + model.clouds.map(\.name))
        // The greedy start proves every cell fits, and its cost is what the relaxation's price steps aim below.
        var optimizer = Optimizer(problem: problem, budget: budget / 10, seed: seed)
        let order = optimizer.initialOrder()
        let stuck = optimizer.construct(order: order, rounds: 25)
        guard stuck.isEmpty else {
            return .failure(PlacementFailure(cells: Feasibility.capacityFailures(stuck, optimizer: optimizer)))
        }
        optimizer.descend()
        var best = optimizer.state
        var bestCost = optimizer.totalCost
        var steps = optimizer.steps

        // An iteration passes over every cell once, as cheap as a few steps of search; a few hundred settle the
        // prices on the smaller bench instances. On the largest the bound below gets only its floor of evaluations,
        // each some fifteen iterations' work, so it ends near where these prices start it, and their counts are
        // where the search starts: there a sixth of the cells are the cheapest gain of both. An iteration's work
        // grows with the clouds too, so the extra falls with their square; at 200 clouds the counts also aim the
        // ruin-and-recreate's relocations (measured effects: docs/planner.md, Tuning).
        let clouds = max(1, problem.clouds.count)
        let iterations = max(min(400, max(300, 6 * budget / max(1, cellCount))), min(cellCount / 6, 18_000_000 / (clouds * clouds)))
        var relaxation = Relaxation(problem)
        let guide = relaxation.guide(upperBound: bestCost, iterations: iterations)
        // The lower bound, from those prices and the greedy's primaries. Its capacity prices, the LP's, rank the
        // primary moves below; its fractional primaries rounded make a worse start than the relaxation's counts
        // (half the LP's databases split between two clouds), so the start stays the relaxation's.
        var dual = LagrangianBound(problem)
        let startDual = dual.start(prices: guide.prices, primary: best.primary)
        let lp = dual.solve(from: startDual, upperBound: bestCost, evaluations: options.boundEvaluations ?? dual.defaultEvaluations)
        // Where those evaluations are the floor, the bound is still climbing when they end, and the search below
        // leaves a core idle for seconds: the bound goes on there, while the search keeps these prices.
        let continuation = dual.defaultEvaluations == LagrangianBound.leastEvaluations ? BoundContinuation(dual, from: lp.dual, upperBound: bestCost) : nil

        /// A search's placement becomes the best when it fits and is cheaper; its work counts either way.
        func keep(_ search: PenaltySearch) {
            steps += search.steps
            if search.isFeasible, search.cost < bestCost - Optimizer.tolerance(bestCost) {
                best = search.placement
                bestCost = search.cost
            }
        }
        // Primaries where the relaxation put them, services annealed around them: the start that matters, since
        // no local move trades a cheap cloud's services for a database and back at the scale that start does.
        if let start = guide.start(problem, order: order) {
            var guided = PenaltySearch(problem: problem, start: start, seed: seed &+ 2, targets: optimizer.cheapestClouds)
            guided.anneal(moves: 2 * budget)
            keep(guided)
        }
        // The greedy's placement (or the guided one, if better) annealed too: where the relaxation's primaries are
        // wrong, the greedy's may be right and only its services need to move.
        var polished = PenaltySearch(problem: problem, start: best, seed: seed &+ 4, targets: optimizer.cheapestClouds)
        polished.anneal(moves: budget)
        keep(polished)
        // Then primaries one at a time, each move judged once the services have settled around it; each settling
        // covers every service a hundred times over, within bounds that keep a try a few milliseconds, and ends
        // with exchanges of replicas, so a move is judged on a layout close to the best for its primaries rather
        // than on where the annealing happened to stop. Judged so, the later tries still pay, hence eight per
        // settling's worth of budget rather than four.
        var refined = PenaltySearch(problem: problem, start: best, seed: seed &+ 3, targets: optimizer.cheapestClouds)
        let settle = max(50_000, min(100_000, 100 * problem.services.count))
        let tries = 8 * budget / settle
        refined.refinePrimaries(prices: lp.prices, tries: tries, moves: settle, exchanges: settle)
        keep(refined)
        // Last, ruin-and-recreate over whole cells, where the tries above were few: it still finds the odd exchange
        // the moves of single replicas miss. After many tries it buys next to nothing once the exchanges below have
        // run, for time the 50-cloud instances' target has no room for.
        if tries < Self.triesWithoutRuins {
            var search = Optimizer(problem: problem, budget: max(4 * budget / 10, Self.ruinStepsPerCell * cellCount), seed: seed &+ 1)
            search.adopt(best)
            search.recountUsage()
            search.aimRelocations(frequency: guide.frequency)
            search.improve()
            steps += search.steps
            if search.totalCost < bestCost - Optimizer.tolerance(bestCost) {
                best = search.state
                bestCost = search.totalCost
            }
        }
        // Then, where the primary tries were as few, the services laid afresh around the final primaries: the bound
        // solved again with them fixed, from its prices, and its soft layout rounded, repaired at its prices,
        // annealed briefly and exchanged at length. The moves above leave the services short of the LP's layout around
        // those primaries by more than any other phase gains. With many tries, each settling the services anew, it
        // gains little for time that the 50-cloud instances' target has no room for.
        if tries < Self.triesWithoutRuins {
            var around = LagrangianBound(problem.fixingPrimaries(best.primary))
            let fixed = around.solve(from: around.start(prices: lp.prices, primary: best.primary), upperBound: bestCost, evaluations: Self.layoutEvaluations, phases: Self.layoutPhases)
            let soft = around.softReplicas(fixed.dual, temperature: fixed.temperature)
            var rounder = Optimizer(problem: problem, budget: 0, seed: seed)
            var relaid = PenaltySearch(
                problem: problem, start: rounder.roundedLayout(primary: best.primary, soft: soft), seed: seed &+ 6, targets: optimizer.cheapestClouds
            )
            relaid.repair(prices: fixed.prices, nearest: Self.repairChoices)
            // About ten moves a service: fewer leave more of the rounding's misfits, more shake the start loose.
            relaid.anneal(moves: max(50_000, 10 * problem.services.count))
            relaid.exchange(work: Self.relaidExchangeWork * budget, sweep: .thorough)
            keep(relaid)
        }
        // And the replicas exchanged once more around the final primaries: whole-cell ruins, and on larger inputs
        // the refinement's last annealing, leave pairs of replicas that would both be cheaper swapped.
        var exchanged = PenaltySearch(problem: problem, start: best, seed: seed &+ 5, targets: optimizer.cheapestClouds)
        exchanged.exchange(work: 10 * budget)
        keep(exchanged)
        // On the smallest inputs the LP relaxation itself is up to 1% below the optimum, so a bound of LP quality
        // cannot prove them within 1%; every combination of primaries bounded on its own can (docs/planner.md, step
        // 6). The combinations are counted first, so larger inputs pay nothing. Its work is capped: where the walk
        // needs more the LP's bound stands, and where the tightening
        // does the combinations left keep the walk's bounds.
        var lowerBound = max(lp.value, continuation?.value() ?? -.infinity)
        if PrimaryEnumeration.combinations(problem, limit: Self.enumeratedCombinations) != nil,
           let bound = PrimaryEnumeration.bound(problem, prices: lp.prices, ceiling: bestCost, work: Self.enumerationWork, tightening: 30) {
            lowerBound = max(lowerBound, bound)
        }
        optimizer.adopt(best)
        optimizer.recountUsage()
        return .success(PlanBuilder(problem: problem, optimizer: optimizer, lowerBound: min(lowerBound, bestCost), steps: steps).plan(explanations: options.explanations))
    }

    /// Evaluations and phases of the bound around the final primaries: its soft layout a phase or two warmer than the
    /// bound's coldest rounds as well, in half the time of 120 evaluations.
    static let layoutEvaluations = 60
    static let layoutPhases = 3
    /// The exchanges that finish the services laid afresh, in budgets: less than one pass over the largest inputs'
    /// layouts, since the first exchanges gain most and running them out costs seconds.
    static let relaidExchangeWork = 400
    /// The clouds the repair looks at for each replica, cheapest at the bound's prices first: more cost time for
    /// nothing, fewer leave the repair dearer.
    static let repairChoices = 12

    /// Tries at moving primaries after which the whole-cell ruin-and-recreate is left out.
    static let triesWithoutRuins = 32
    /// The ruin-and-recreate's least work per cell. On the largest inputs the budget, sized for a second of search,
    /// leaves it few steps a cell, and there it is the phase that gains most for its time; more than this leaves the
    /// synthetic input too little room under its 10 s, since `pullNextToPrimaries` finishes what it leaves.
    static let ruinStepsPerCell = 20

    /// The most combinations of primaries whose bounds are walked (c8_s20_d5_k1 has 1.9e9; 20 clouds have far more).
    static let enumeratedCombinations = 10_000_000_000
    /// Services and primaries the walk and the tightening may look at: room for what the 8-cloud instances need.
    static let enumerationWork = 4_000_000
}
