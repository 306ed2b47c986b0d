public import MCloudCore

/// Database cells with a DR leg that `mcloud failover` is to restore from (`disasterRecovery.restore: failover`, the
/// default) whose primary the plan puts on a cloud's managed engine: failover loads dumps into VMs only, and a managed
/// engine's backups stay in its cloud, so that leg could never bring the data back (docs/dr.md). Such a plan is refused
/// unless the database says `hosting: vm` or `restore: manual`. Checked on the plan rather than as a filter, so
/// `hosting: any` keeps choosing by price what the catalog offers, and planning problems without failover (the
/// benchmark instances) are placed as they always were.
public enum RestorableLegs {
    /// Nil when every DR leg can restore; else each such cell with its verified hints.
    public static func failure(_ model: Model, _ plan: PlacementPlan, options: Planner.Options = Planner.Options()) -> PlacementFailure? {
        let databases = Dictionary(model.databases.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let check = HintCheck(model: model, options: options)
        var cells: [PlacementFailure.InfeasibleCell] = []
        for placed in plan.databases {
            let workload = placed.cell.split(separator: "@").first.map(String.init) ?? placed.cell
            guard let database = databases[workload], database.restoresOnFailover, let cloud = clouds[placed.primary],
                  database.runsManaged(on: cloud) else { continue }
            let reason = Reason(.dr, "its managed \(database.engine) keeps its backups in the cloud; failover restores the DR leg's dumps into VMs only")
            var cell = PlacementFailure.InfeasibleCell(
                cell: placed.cell,
                summary: "\(placed.cell): its DR leg cannot be restored: the primary on \(cloud.name) would be the cloud's managed \(database.engine) (hosting: \(database.hosting.rawValue))",
                rejected: [(cloud: cloud.name, reasons: [reason])]
            )
            let candidates = [
                Hint.database(workload, "set hosting: vm, so failover can restore the primary from its DR leg") { $0.hosting = .vm },
                Hint.database(workload, "set disasterRecovery.restore: manual to keep the managed engine and restore it by hand") {
                    $0.backup?.disasterRecovery?.restore = .manual
                },
            ]
            cell.hints = candidates.filter { check.works($0, for: placed.cell, others: []) }.map(\.text)
            cells.append(cell)
        }
        return cells.isEmpty ? nil : PlacementFailure(cells: cells)
    }
}
