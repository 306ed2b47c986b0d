public import MCloudCore

/// The application placed as if some clouds were gone, beside its placement with every cloud: what `plan --lose`
/// shows and what a failover moves to. Cells that cannot be placed without those clouds are left out, each with its
/// scheduler-style summary, and the rest placed again without them, so the report shows every cell's fate at once.
public struct WhatIf: Sendable {
    /// Sorted by name.
    public var lost: [String]
    public var current: PlacementPlan
    /// The placement without the lost clouds and without the `unplaceable` cells.
    public var after: PlacementPlan
    /// Sorted by cell name.
    public var unplaceable: [PlacementFailure.InfeasibleCell]

    /// Fails only when the placement with every cloud fails: then there is nothing to compare against.
    public static func plan(_ model: Model, losing lost: Set<String>, options: Planner.Options = Planner.Options()) -> Result<WhatIf, PlacementFailure> {
        var currentOptions = options
        currentOptions.lost = []
        let current: PlacementPlan
        switch Planner.plan(model, options: currentOptions) {
        case .success(let plan): current = plan
        case .failure(let failure): return .failure(failure)
        }
        var afterOptions = options
        afterOptions.lost = lost
        var unplaceable: [PlacementFailure.InfeasibleCell] = []
        // Each round leaves out at least one more cell, so it ends; the last round, with none left to fail, places the rest.
        while true {
            switch Planner.plan(model, options: afterOptions) {
            case .success(let after):
                return .success(WhatIf(lost: lost.sorted(), current: current, after: after, unplaceable: unplaceable.sorted { $0.cell < $1.cell }))
            case .failure(let failure):
                let fresh = failure.cells.filter { !afterOptions.leftOut.contains($0.cell) }
                guard !fresh.isEmpty else { return .failure(failure) }
                unplaceable += fresh
                afterOptions.leftOut.formUnion(fresh.map(\.cell))
            }
        }
    }
}
