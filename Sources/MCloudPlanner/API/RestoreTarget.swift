public import MCloudCore

/// Where a restore drill may load a database cell's backup: a cloud that could run the cell's primary under the
/// rules that bind the data itself, capability and residency. Latency, spread, the DR leg and capacity bind where
/// the cell serves from, not a scratch copy that lives for minutes.
public enum RestoreTarget {
    /// Why `cloud` cannot take a restore of the database cell named `cell` (`ledger`, `accounts-db@ru`): empty when
    /// it can; nil when the model has no such database cell or cloud.
    public static func reasons(_ model: Model, cell name: String, cloud: String, lost: Set<String> = []) -> [Reason]? {
        let problem = PlanningProblem(model: model, lost: lost)
        guard let database = problem.databases.first(where: { $0.cell.name == name }),
              let target = problem.clouds.first(where: { $0.cloud.name == cloud }) else { return nil }
        return problem.filters.primaryReasons(database.database, audiences: database.audiences, target)
    }
}
