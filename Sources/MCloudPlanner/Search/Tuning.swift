/// The search's and the bound's tuning in one place, each with why it is what it is. The figures they were measured
/// with are in docs/planner.md, "Tuning".
enum Tuning {
    /// The local search's work in steps when the caller gives none: a step costs about one pass over the clouds, so
    /// the work shrinks as clouds grow, up to 1,000 steps a cell on small inputs and about a second of search on the
    /// largest.
    static func budget(cells: Int, clouds: Int) -> Int {
        max(100_000, min(1_000 * cells, 20_000_000 / max(1, clouds)))
    }

    /// Rounds of the construction before a cell that still does not fit is reported: each round puts the cells
    /// that did not fit first.
    static let constructionRounds = 25

    /// The relaxation's price iterations: a few hundred settle the smaller inputs; on the largest a sixth of the
    /// cells, since the bound there gets only its floor of evaluations and ends near where these prices start it,
    /// falling with the square of the clouds as an iteration's work grows with them.
    static func relaxationIterations(budget: Int, cells: Int, clouds: Int) -> Int {
        let clouds = max(1, clouds)
        return max(min(400, max(300, 6 * budget / max(1, cells))), min(cells / 6, 18_000_000 / (clouds * clouds)))
    }

    /// Moves a primary try settles its services with: every service a hundred times over, within bounds that keep a
    /// try a few milliseconds.
    static func settling(services: Int) -> Int { max(50_000, min(100_000, 100 * services)) }
    /// Primary tries per settling's worth of budget: judged on settled layouts, the later tries still pay.
    static let primaryTriesPerSettling = 8

    /// Tries at moving primaries after which the whole-cell ruin-and-recreate and the relaid services are left out:
    /// with many tries, each settling the services anew, they gain little for time the 50-cloud instances' target
    /// has no room for.
    static let triesWithoutRuins = 32
    /// The ruin-and-recreate's least work per cell. On the largest inputs the budget, sized for a second of search,
    /// leaves it few steps a cell, and there it is the phase that gains most for its time; more than this leaves the
    /// synthetic input too little room under its 10 s, since `pullNextToPrimaries` finishes what it leaves.
    static let ruinStepsPerCell = 20

    /// Evaluations and phases of the bound around the final primaries: its soft layout a phase or two warmer than the
    /// bound's coldest rounds as well, in half the time of 120 evaluations.
    static let layoutEvaluations = 60
    static let layoutPhases = 3
    /// Annealing moves after the relaid services' repair, about ten a service: fewer leave more of the rounding's
    /// misfits, more shake the start loose.
    static func relaidMoves(services: Int) -> Int { max(50_000, 10 * services) }
    /// The exchanges that finish the services laid afresh, in budgets: less than one pass over the largest inputs'
    /// layouts, since the first exchanges gain most and running them out costs seconds.
    static let relaidExchangeWork = 400
    /// The clouds the repair looks at for each replica, cheapest at the bound's prices first: more cost time for
    /// nothing, fewer leave the repair dearer.
    static let repairChoices = 12
    /// The last exchanges around the final primaries, in budgets.
    static let finalExchangeWork = 10

    /// The most combinations of primaries whose bounds are walked (c8_s20_d5_k1 has 1.9e9; 20 clouds have far more).
    static let enumeratedCombinations = 10_000_000_000
    /// Services and primaries the walk and the tightening may look at: room for what the 8-cloud instances need.
    static let enumerationWork = 4_000_000
    /// Subgradient steps each combination left after the walk gets.
    static let enumerationTightening = 30

    /// Each search draws from a stream of its own, the input's seed plus its offset, so that adding or dropping a
    /// phase leaves the others' draws as they were.
    enum Stream: UInt64 {
        case ruins = 1
        case guided = 2
        case refined = 3
        case polished = 4
        case exchanged = 5
        case relaid = 6
    }
}
