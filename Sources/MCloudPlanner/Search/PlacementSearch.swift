/// One placement of a problem whose clouds are already restricted, phase by phase (`Planner.place` runs them in
/// order; `README.md` here says which search does what). It keeps the cheapest placement that fits and the work
/// every phase spent.
struct PlacementSearch {
    let problem: PlanningProblem
    let budget: Int
    let seed: UInt64
    /// The greedy's optimizer: its order, its cheapest clouds, and at the end the best placement for the plan.
    private var optimizer: Optimizer
    private let order: [Optimizer.Item]
    private var best: PlacementState
    private var bestCost: Double
    private var steps: Int
    private var guide: Relaxation.Guide?
    private var lp: LagrangianBound.Result?
    private var continuation: BoundContinuation?
    /// Tries at moving primaries, once `refinePrimaries` ran: few leave room for the ruins and the relaid services.
    private var primaryTries = Int.max

    private var cellCount: Int { problem.services.count + problem.databases.count }
    private var fewPrimaryTries: Bool { primaryTries < Tuning.triesWithoutRuins }

    /// The greedy construction, which proves every cell fits (its cost is what the relaxation's price steps aim
    /// below), and a descent from it; the cells it could not fit otherwise.
    static func construct(_ problem: PlanningProblem, budget: Int?, seed: UInt64) -> Result<PlacementSearch, PlacementFailure> {
        let budget = budget ?? Tuning.budget(cells: problem.services.count + problem.databases.count, clouds: problem.clouds.count)
        var optimizer = Optimizer(problem: problem, budget: budget / 10, seed: seed)
        let order = optimizer.initialOrder()
        let stuck = optimizer.construct(order: order, rounds: Tuning.constructionRounds)
        guard stuck.isEmpty else { return .failure(PlacementFailure(cells: Feasibility.capacityFailures(stuck, optimizer: optimizer))) }
        optimizer.descend()
        return .success(PlacementSearch(problem: problem, budget: budget, seed: seed, optimizer: optimizer, order: order))
    }

    private init(problem: PlanningProblem, budget: Int, seed: UInt64, optimizer: Optimizer, order: [Optimizer.Item]) {
        self.problem = problem
        self.budget = budget
        self.seed = seed
        self.optimizer = optimizer
        self.order = order
        best = optimizer.state
        bestCost = optimizer.totalCost
        steps = optimizer.steps
    }

    /// The relaxation's prices and how often each database chose each primary: the search's start, and where the
    /// ruin-and-recreate aims its relocations.
    mutating func relax() {
        var relaxation = Relaxation(problem)
        let iterations = Tuning.relaxationIterations(budget: budget, cells: cellCount, clouds: problem.clouds.count)
        guide = relaxation.guide(upperBound: bestCost, iterations: iterations)
    }

    /// The lower bound, from the relaxation's prices and the greedy's primaries. Its capacity prices, the LP's, rank
    /// the primary moves; its fractional primaries rounded make a worse start than the relaxation's counts (half the
    /// LP's databases split between two clouds), so the start stays the relaxation's. Where its evaluations are the
    /// floor, it is still climbing when they end while the search leaves a core idle: it goes on there
    /// (`BoundContinuation`), and the search keeps these prices.
    mutating func bound(evaluations: Int?) {
        guard let guide else { preconditionFailure("the bound starts from the relaxation's prices: relax() first") }
        var dual = LagrangianBound(problem)
        let startDual = dual.start(prices: guide.prices, primary: best.primary)
        let solved = dual.solve(from: startDual, upperBound: bestCost, evaluations: evaluations ?? dual.defaultEvaluations)
        lp = solved
        continuation = dual.defaultEvaluations == LagrangianBound.leastEvaluations ? BoundContinuation(dual, from: solved.dual, upperBound: bestCost) : nil
    }

    /// Primaries where the relaxation put them, services annealed around them: the start that matters, since no local
    /// move trades a cheap cloud's services for a database and back at the scale that start does.
    mutating func annealFromRelaxation() {
        guard let start = guide?.start(problem, order: order) else { return }
        var guided = PenaltySearch(problem: problem, start: start, seed: stream(.guided), targets: optimizer.cheapestClouds)
        guided.anneal(moves: 2 * budget)
        keep(guided)
    }

    /// The greedy's placement (or the guided one, if better) annealed too: where the relaxation's primaries are
    /// wrong, the greedy's may be right and only its services need to move.
    mutating func annealBest() {
        var polished = PenaltySearch(problem: problem, start: best, seed: stream(.polished), targets: optimizer.cheapestClouds)
        polished.anneal(moves: budget)
        keep(polished)
    }

    /// Primaries one at a time, each move judged once the services have settled around it, each settling ending
    /// with exchanges of replicas, so a move is judged on a layout close to the best for its primaries rather than on
    /// where the annealing happened to stop.
    mutating func refinePrimaries() {
        guard let lp else { preconditionFailure("the primary moves are ranked by the bound's prices: bound() first") }
        var refined = PenaltySearch(problem: problem, start: best, seed: stream(.refined), targets: optimizer.cheapestClouds)
        let settle = Tuning.settling(services: problem.services.count)
        primaryTries = Tuning.primaryTriesPerSettling * budget / settle
        refined.refinePrimaries(prices: lp.prices, tries: primaryTries, moves: settle, exchanges: settle)
        keep(refined)
    }

    /// Ruin-and-recreate over whole cells, where the primary tries were few: it still finds the odd exchange the moves
    /// of single replicas miss.
    mutating func ruinAndRecreate() {
        guard fewPrimaryTries, let guide else { return }
        var search = Optimizer(problem: problem, budget: max(4 * budget / 10, Tuning.ruinStepsPerCell * cellCount), seed: stream(.ruins))
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

    /// Where the primary tries were as few, the services laid afresh around the final primaries: the bound solved
    /// again with them fixed, from its prices, and its soft layout rounded, repaired at its prices, annealed briefly
    /// and exchanged at length. The moves before leave the services short of the LP's layout around those primaries
    /// by more than any other phase gains.
    mutating func relayServices() {
        guard fewPrimaryTries, let lp else { return }
        var around = LagrangianBound(problem.fixingPrimaries(best.primary))
        let fixed = around.solve(
            from: around.start(prices: lp.prices, primary: best.primary), upperBound: bestCost, evaluations: Tuning.layoutEvaluations, phases: Tuning.layoutPhases
        )
        let soft = around.softReplicas(fixed.dual, temperature: fixed.temperature)
        var rounder = Optimizer(problem: problem, budget: 0, seed: seed)
        var relaid = PenaltySearch(
            problem: problem, start: rounder.roundedLayout(primary: best.primary, soft: soft), seed: stream(.relaid), targets: optimizer.cheapestClouds
        )
        relaid.repair(prices: fixed.prices, nearest: Tuning.repairChoices)
        relaid.anneal(moves: Tuning.relaidMoves(services: problem.services.count))
        relaid.exchange(work: Tuning.relaidExchangeWork * budget, sweep: .thorough)
        keep(relaid)
    }

    /// The replicas exchanged once more around the final primaries: whole-cell ruins, and on larger inputs the
    /// refinement's last annealing, leave pairs of replicas that would both be cheaper swapped.
    mutating func exchangeReplicas() {
        var exchanged = PenaltySearch(problem: problem, start: best, seed: stream(.exchanged), targets: optimizer.cheapestClouds)
        exchanged.exchange(work: Tuning.finalExchangeWork * budget)
        keep(exchanged)
    }

    /// The proven lower bound: the LP's (and its continuation's), and on the smallest inputs, whose LP relaxation is
    /// up to 1% below the optimum, every combination of primaries bounded on its own (docs/planner.md, step 6). The
    /// combinations are counted first, so larger inputs pay nothing; where the walk needs more work than it may
    /// have the LP's bound stands.
    func provenBound() -> Double {
        guard let lp else { preconditionFailure("bound() first") }
        var lowerBound = max(lp.value, continuation?.value() ?? -.infinity)
        if PrimaryEnumeration.combinations(problem, limit: Tuning.enumeratedCombinations) != nil,
           let bound = PrimaryEnumeration.bound(problem, prices: lp.prices, ceiling: bestCost, work: Tuning.enumerationWork, tightening: Tuning.enumerationTightening) {
            lowerBound = max(lowerBound, bound)
        }
        return min(lowerBound, bestCost)
    }

    /// The best placement as a plan, with its bound and, when asked, every cell's reasons.
    mutating func plan(explanations: Planner.Explanations) -> PlacementPlan {
        let lowerBound = provenBound()
        optimizer.adopt(best)
        optimizer.recountUsage()
        return PlanBuilder(problem: problem, optimizer: optimizer, lowerBound: lowerBound, steps: steps).plan(explanations: explanations)
    }

    /// A search's placement becomes the best when it fits and is cheaper; its work counts either way.
    private mutating func keep(_ search: PenaltySearch) {
        steps += search.steps
        if search.isFeasible, search.cost < bestCost - Optimizer.tolerance(bestCost) {
            best = search.placement
            bestCost = search.cost
        }
    }

    private func stream(_ stream: Tuning.Stream) -> UInt64 { seed &+ stream.rawValue }
}
