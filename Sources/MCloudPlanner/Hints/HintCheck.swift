import MCloudCore

/// Keeps only the hints that work: each candidate is applied to a copy of the model (and of the clouds taken as lost)
/// and the cell placed again, the other failed cells left out; a hint whose cell still cannot be placed is dropped.
/// Placing again stops at the construction (the static filters, then every cell with the capacity left), which is
/// what decides whether a cell can be placed; the search after it only lowers the cost.
struct HintCheck {
    let model: Model
    let options: Planner.Options

    /// The failure with each cell's verified hints, in the order found.
    func verified(_ failure: PlacementFailure) -> PlacementFailure {
        let problem = Planner.restricted(model, lost: options.lost, leftOut: options.leftOut)
        let failing = Set(failure.cells.map(\.cell))
        var checked = failure
        for index in checked.cells.indices {
            let cell = checked.cells[index]
            let candidates = HintFinder(problem: problem, failed: cell).candidates()
            checked.cells[index].hints = candidates.filter { works($0, for: cell.cell, others: failing.subtracting([cell.cell])) }.map(\.text)
        }
        return checked
    }

    /// Whether the cell (or, when the hint splits a global workload, each of its cells) is placed with the hint applied.
    func works(_ hint: Hint, for cell: String, others: Set<String>) -> Bool {
        var edited = model
        var lost = options.lost
        hint.edit(&edited, &lost)
        // The model's collections stay sorted by name, which ties are broken by.
        edited = Model(
            application: edited.application, clouds: edited.clouds, services: edited.services, databases: edited.databases, cdns: edited.cdns,
            policies: edited.policies
        )
        // A global cell's hint may split it into a cell per audience, which are then its own; a cell of one
        // audience answers only for itself, not for its siblings failing on their own rules.
        let isGlobal = !cell.contains("@")
        func isMine(_ name: String) -> Bool { name == cell || (isGlobal && name.hasPrefix("\(cell)@")) }
        var leftOut = options.leftOut.union(others.filter { !isMine($0) })
        // A cell the edit makes fail elsewhere is left out too, as a what-if does; each round leaves out one more.
        for _ in 0 ..< 4 {
            let failing = Planner.unplaceable(edited, lost: lost, leftOut: leftOut)
            if failing.contains(where: isMine) { return false }
            if failing.isEmpty { return true }
            leftOut.formUnion(failing)
        }
        return false
    }
}
