public import MCloudCore
public import MCloudDatabaseEngines
import MCloudProvider

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
    /// The dependent cell, whose labels the Secret `apply` writes carries.
    public var dependent: Cell

    /// The dependent cell, `payments-api@eu`.
    public var service: String { edge.service }
    /// The database cell, `payments-db@eu`.
    public var database: String { edge.cell }

    /// The file under the cluster's folder.
    public var path: String { "\(namespace)/\(name).secret.yaml" }

    /// The Secret as `apply` writes it: the dependent's labels, the edge in its annotation and every key of the data
    /// with the redaction marker for its value. The Kubernetes provider puts the derived values in when it applies
    /// it, so no plan or state holds them.
    var appliedObject: KubernetesObject {
        let labels = CellLabels(cell: dependent, application: edge.application, workloadLabels: [:]).metadata(cloud: cloud)
        return KubernetesObject(
            "v1", "Secret", name: name, namespace: namespace, labels: labels,
            annotations: [ClientAccess.Edge.annotation: .string(edge.annotationValue)],
            content: [
                ("type", "Opaque"),
                ("data", .map(ClientAccess.dataKeys(edge).map { ($0, .string(SecretRedaction.markerText)) })),
            ]
        )
    }
}
