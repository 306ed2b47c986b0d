import MCloudCore
import MCloudDatabaseEngines

/// Where services reach a database: a DNS name for the planner's primary and the engine's port.
enum DatabaseEndpoint {
    /// `accounts-db.retail-bank-ru.sel-msk.mcloud.internal`: workload, namespace, the primary's cloud, in the private
    /// `.internal` zone. Each cloud's zone holds the records of the primaries it runs, kept by the apply engine;
    /// the name follows the primary when the planner moves it, and never depends on an IP or a provisioning order.
    static func host(_ database: Topology.DatabaseCell) -> String {
        "\(database.database.name).\(database.namespace).\(database.primary).mcloud.internal"
    }

    /// The engine catalog's standard port; nil for an engine only a cloud's managed offer knows.
    static func port(_ database: Topology.DatabaseCell) -> Int? {
        Engine(named: database.database.engine)?.defaultPort
    }
}
