public import MCloudCore

/// Places every cell of a validated model: pure, deterministic, explained.
public enum Planner {
    public struct Options: Sendable {
        /// Local-search work in cells placed; nil sizes it to the problem.
        public var budget: Int?
        /// Evaluations of the dual function for the lower bound; nil sizes them to the problem.
        public var boundEvaluations: Int?
        /// How much of each cell's reasoning the plan carries; a benchmark of the search alone can leave it out.
        public var explanations: Explanations
        /// Clouds to place as if they were gone, by name: a what-if, or the placement a failover moves to.
        public var lost: Set<String>
        /// Cells (and CDNs) left out of the placement, by name: what a what-if could not place, so the rest still shows.
        public var leftOut: Set<String>

        public init(
            budget: Int? = nil, boundEvaluations: Int? = nil, explanations: Explanations = .every, lost: Set<String> = [], leftOut: Set<String> = []
        ) {
            self.budget = budget
            self.boundEvaluations = boundEvaluations
            self.explanations = explanations
            self.lost = lost
            self.leftOut = leftOut
        }
    }

    /// What the plan says of each cell beside its placement.
    public enum Explanations: Sendable {
        /// Nothing: the search alone.
        case none
        /// Why it went there, the clouds chosen, the runner-up and the unused clouds counted by filter
        /// (`PlacementPlan.Explanation.counts`): what `plan --json` prints, without the text of every reason and the
        /// capacity of every considered cloud, which at hundreds of clouds take more time and memory than the search.
        case counted
        /// Also every unused cloud with every reason, and every considered cloud with its cost and capacity.
        case every
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
        let stuck = optimizer.construct(order: optimizer.initialOrder(), rounds: Tuning.constructionRounds)
        return Feasibility.capacityFailures(stuck, optimizer: optimizer).map(\.cell)
    }

    /// One placement of a problem whose clouds are already restricted: the static filters, then the search's phases
    /// in order (`PlacementSearch`, docs/planner.md "How it decides"), the bound and the explanations.
    private static func place(_ problem: PlanningProblem, _ model: Model, options: Options) -> Result<PlacementPlan, PlacementFailure> {
        let failures = Feasibility.staticFailures(problem)
        guard failures.isEmpty else { return .failure(PlacementFailure(cells: failures)) }
        let seed = SplitMix64.seed(from: model.cells.map(\.name) + model.clouds.map(\.name))
        var search: PlacementSearch
        switch PlacementSearch.construct(problem, budget: options.budget, seed: seed) {
        case .success(let constructed): search = constructed
        case .failure(let failure): return .failure(failure)
        }
        search.relax()
        search.bound(evaluations: options.boundEvaluations)
        search.annealFromRelaxation()
        search.annealBest()
        search.refinePrimaries()
        search.ruinAndRecreate()
        search.relayServices()
        search.exchangeReplicas()
        return .success(search.plan(explanations: options.explanations))
    }
}
