public import MCloudCore

/// A `dependsOn` edge that cannot be wired in one cluster where its dependent runs: a plan error naming the edge
/// (`payments-api@eu@aws-irl -> payments-db@eu`), why, and what would fix it.
public struct WiringError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// The database runs in another cloud, `database`, and the dependent's cluster names no egress addresses in its
        /// catalog entry (at `catalog`), so the engine, which admits only those, could admit nobody from it.
        case noEgressCIDRs(database: String, catalog: SourceLocation)
        /// The service runs only in `clouds` (sorted) and nothing exposes it outside them: it has no Ingress, as it
        /// is not public (declared at `service`), and none of them shares a cluster set with the dependent's cluster.
        case notExposed(clouds: [String], service: SourceLocation)
    }

    public var dependent: Connection.Dependent
    public var target: Cell
    public var reason: Reason

    public var description: String {
        let edge = "\(dependent) -> \(target.name)"
        switch reason {
        case .noEgressCIDRs(let database, let catalog):
            return "\(edge): the database runs in \(database), another cloud, and \(dependent.cloud) names no endpoints.kubernetes.egressCIDRs in its catalog entry (\(catalog)), so the engine could admit nobody from this cluster: list the addresses the cluster's traffic leaves from there"
        case .notExposed(let clouds, let service):
            return "\(edge): \(target.workload) runs only in \(clouds.joined(separator: ", ")) and nothing exposes it outside them: it is not public and none of them shares a cluster set with \(dependent.cloud): set endpoints.kubernetes.clusterSet on \(dependent.cloud) and one of them in the catalog if their clusters share Multi-Cluster Services, or expose.public: true on \(target.workload) (\(service)) so that \(dependent.cloud) reaches it through its Ingress"
        }
    }
}
