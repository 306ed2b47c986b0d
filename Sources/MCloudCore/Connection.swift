/// One `dependsOn` edge as one cluster wires it: a service cell running in a cluster reaches a database cell or a
/// service cell by a route, under a stable name in its own cluster (docs/connectivity.md). Rendering makes them, as it
/// knows the placement; the plan lists them and `explain` shows a cell's own.
public struct Connection: Hashable, Sendable {
    /// The cell that connects, in one cluster where it runs, with the namespace its pods run in.
    public struct Dependent: Hashable, Sendable, CustomStringConvertible {
        public var cell: Cell
        public var cloud: String
        public var namespace: String

        public init(cell: Cell, cloud: String, namespace: String) {
            self.cell = cell
            self.cloud = cloud
            self.namespace = namespace
        }

        /// `payments-api@eu@aws-irl`: the cell, then the cluster.
        public var description: String { "\(cell.name)@\(cloud)" }
    }

    /// What it connects to.
    public enum Target: Hashable, Sendable {
        /// A database cell and its engine's port; nil for an engine only a cloud's managed offer knows.
        case database(Cell, engine: String, port: Int?)
        /// A service cell and its ports.
        case service(Cell, ports: [Service.Port])

        public var cell: Cell {
            switch self {
            case .database(let cell, _, _), .service(let cell, _): cell
            }
        }
    }

    /// How the dependent's traffic gets there.
    public enum Route: Hashable, Sendable {
        /// A database on VMs in `cloud`: the address the provider reports for the primary's server, whose resource
        /// address is `server`. Known once applied.
        case databaseServer(cloud: String, server: String)
        /// A cloud's managed database in `cloud`: the host name of its endpoint, which the provider reports for the
        /// resource at `database`. Known once applied.
        case managedEndpoint(cloud: String, database: String)
        /// The target's own Service, as it runs in the dependent's cluster.
        case clusterService
        /// The target's Service exported to the Multi-Cluster Services cluster set `set`, from the clusters of the set
        /// that run it (sorted).
        case clusterSet(String, clouds: [String])
        /// The target's Ingress in the clusters that run it (sorted), on `port`: the addresses their load balancers
        /// report. Known once applied.
        case ingress(clouds: [String], port: Int)

        /// The clouds the traffic goes to.
        public var clouds: [String]? {
            switch self {
            case .databaseServer(let cloud, _), .managedEndpoint(let cloud, _): [cloud]
            case .clusterService: nil
            case .clusterSet(_, let clouds), .ingress(let clouds, _): clouds
            }
        }
    }

    public var dependent: Dependent
    public var target: Target
    public var route: Route
    /// The name the dependent's pods use, in its cluster: `payments-db.retail-bank-eu.svc`.
    public var name: String
    /// Whether the traffic leaves the dependent's cloud.
    public var crossesClouds: Bool
    /// Where the dependent's cluster sends its traffic from (the catalog's `egressCIDRs`): all a database's engine
    /// and a remote service's policy admit of it.
    public var egressCIDRs: [String]

    public init(dependent: Dependent, target: Target, route: Route, name: String, crossesClouds: Bool, egressCIDRs: [String]) {
        self.dependent = dependent
        self.target = target
        self.route = route
        self.name = name
        self.crossesClouds = crossesClouds
        self.egressCIDRs = egressCIDRs
    }

    /// `payments-api@eu@aws-irl -> payments-db@eu`.
    public var edge: String { "\(dependent.description) -> \(target.cell.name)" }
}
