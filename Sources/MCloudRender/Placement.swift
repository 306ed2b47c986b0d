public import MCloudPlanner

/// What rendering needs of a plan: where each cell runs. Kept apart from `PlacementPlan` (costs, explanations) so
/// tests and the benchmark can state a placement directly.
public struct Placement: Sendable {
    /// Replicas per cloud of each service cell, by cell name; only clouds with at least one replica.
    public var services: [String: [(cloud: String, count: Int)]]
    public var databases: [String: (primary: String, backup: String?)]
    /// The cloud of each CDN, by CDN name.
    public var cdns: [String: String]

    public init(services: [String: [(cloud: String, count: Int)]], databases: [String: (primary: String, backup: String?)], cdns: [String: String]) {
        self.services = services
        self.databases = databases
        self.cdns = cdns
    }

    public init(_ plan: PlacementPlan) {
        self.init(
            services: Dictionary(plan.services.map { ($0.cell, $0.replicas) }, uniquingKeysWith: { first, _ in first }),
            databases: Dictionary(plan.databases.map { ($0.cell, ($0.primary, $0.backup)) }, uniquingKeysWith: { first, _ in first }),
            cdns: Dictionary(plan.cdns.map { ($0.name, $0.cloud) }, uniquingKeysWith: { first, _ in first })
        )
    }
}
