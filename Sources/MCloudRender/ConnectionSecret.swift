public import MCloudDatabaseEngines

/// The Secret one connection to a database VM gives its dependent, in the dependent's namespace of one cluster:
/// which edge it is and the names it holds, never its values. `SecretSealing` derives the values and writes it
/// encrypted; the Deployment reads it (docs/connectivity.md, "Secrets of a connection").
public struct ConnectionSecret: Sendable, Hashable {
    public var cloud: String
    public var namespace: String
    /// `<database>-<dependent workload>`, as CloudNativePG names its application user's Secret `<cluster>-app`.
    public var name: String
    /// The prefix of the pods' variables, as the endpoints ConfigMap's: `PAYMENTS_DB`.
    public var environmentPrefix: String
    /// Where the pods find the CA: a folder of its own per connection.
    public var mountPath: String
    public var edge: ClientAccess.Edge

    /// The dependent cell, `payments-api@eu`.
    public var service: String { edge.service }
    /// The database cell, `payments-db@eu`.
    public var database: String { edge.cell }

    /// The file under the cluster's folder.
    public var path: String { "\(namespace)/\(name).secret.yaml" }
}
