/// The replicas of one placed cell that a resource runs: what placement moves are computed from, so the engine
/// sees a cell's replicas move between clouds without knowing what kind of resource runs them.
public struct CellReplicas: Sendable, Hashable {
    /// `payments-api@ru`, or a global workload's name.
    public var cell: String
    public var replicas: Int

    public init(cell: String, replicas: Int) {
        self.cell = cell
        self.replicas = replicas
    }
}
