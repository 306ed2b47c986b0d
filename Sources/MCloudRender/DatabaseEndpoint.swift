import MCloudCore

/// Where services reach a database: a DNS name for the planner's primary and the engine's port.
enum DatabaseEndpoint {
    /// The engines' standard client ports; an engine not listed here has no known port.
    static let ports: [String: Int] = ["clickhouse": 9000, "mongodb": 27017, "mysql": 3306, "postgresql": 5432, "redis": 6379]

    /// `accounts-db.retail-bank-ru.sel-msk.mcloud.internal`: workload, namespace, the primary's cloud, in the private
    /// `.internal` zone. Each cloud's zone holds the records of the primaries it runs, kept by the apply engine;
    /// the name follows the primary when the planner moves it, and never depends on an IP or a provisioning order.
    static func host(_ database: Topology.DatabaseCell) -> String {
        "\(database.database.name).\(database.namespace).\(database.primary).mcloud.internal"
    }

    static func port(_ database: Topology.DatabaseCell) -> Int? {
        ports[database.database.engine]
    }
}
