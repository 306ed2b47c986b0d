public import MCloudCore
import MCloudProvider

/// Every `dependsOn` edge as the connections it makes: one per cluster where a dependent cell runs and per cell the
/// edge joins there, a price list's cluster (no endpoints) aside (docs/connectivity.md); and the edges that cannot be
/// wired, which `plan` refuses before anything is read or made. Both sorted by dependent, cluster and target.
public struct Wiring: Sendable {
    public var connections: [Connection] = []
    public var errors: [WiringError] = []

    public init(model: Model, placement: Placement) {
        self.init(Topology(model: model, placement: placement))
    }

    init(_ topology: Topology) {
        let primaries = topology.databases.indices.map { Self.primaryRoute($0, in: topology) }
        for (index, source) in topology.services.enumerated() {
            for (cloud, _) in source.replicas {
                // A price list with no endpoints at all is no cluster to wire: the plan says so on its own.
                guard let catalog = topology.clouds[cloud], catalog.endpoints != Cloud.Endpoints() else { continue }
                let dependent = Connection.Dependent(cell: source.cell, cloud: cloud, namespace: source.namespace)
                let egress = catalog.endpoints.kubernetesEgressCIDRs
                for target in topology.databaseDependencies[index] {
                    guard let route = primaries[target] else { continue }
                    let database = topology.databases[target]
                    let crosses = database.primary != cloud
                    if crosses, egress.isEmpty {
                        errors.append(WiringError(dependent: dependent, target: database.cell, reason: .noEgressCIDRs(database: database.primary, catalog: catalog.location)))
                        continue
                    }
                    connections.append(Connection(
                        dependent: dependent, target: .database(database.cell, engine: database.database.engine, port: DatabaseEndpoint.port(database)),
                        route: route, name: Self.localName(database.database.name, of: database.cell, for: dependent), crossesClouds: crosses,
                        egressCIDRs: egress
                    ))
                }
                for target in topology.serviceDependencies[index].map({ topology.services[$0] }) {
                    let route: Connection.Route
                    let name: String
                    if target.count(on: cloud) > 0 {
                        route = .clusterService
                        name = "\(KubernetesName.service(target.service.name)).\(target.namespace).svc"
                    } else if let set = catalog.endpoints.kubernetesClusterSet,
                        case let peers = target.replicas.map(\.cloud).filter({ topology.clouds[$0]?.endpoints.kubernetesClusterSet == set }), !peers.isEmpty
                    {
                        // Preferred to an Ingress: the cluster set's own tunnels, not a public load balancer.
                        route = .clusterSet(set, clouds: peers)
                        name = "\(KubernetesName.service(target.service.name)).\(target.namespace).svc.clusterset.local"
                    } else if let port = IngressBuilder.backendPort(of: target.service) {
                        route = .ingress(clouds: target.replicas.map(\.cloud), port: port.port)
                        name = Self.localName(target.service.name, of: target.cell, for: dependent)
                    } else {
                        let reason = WiringError.Reason.notExposed(clouds: target.replicas.map(\.cloud), service: target.service.location)
                        errors.append(WiringError(dependent: dependent, target: target.cell, reason: reason))
                        continue
                    }
                    connections.append(Connection(
                        dependent: dependent, target: .service(target.cell, ports: target.service.ports), route: route, name: name,
                        crossesClouds: route != .clusterService, egressCIDRs: egress
                    ))
                }
            }
        }
        connections.sort { ($0.dependent.cell, $0.dependent.cloud, $0.target.cell) < ($1.dependent.cell, $1.dependent.cloud, $1.target.cell) }
        errors.sort { ($0.dependent.cell, $0.dependent.cloud, $0.target) < ($1.dependent.cell, $1.dependent.cloud, $1.target) }
    }

    /// The connections of one dependent cell, by its name (`payments-api@eu`).
    public func connections(of cell: String) -> [Connection] {
        connections.filter { $0.dependent.cell.name == cell }
    }

    /// The name of `target` in the dependent's namespace: `payments-db.retail-bank-eu.svc`; a global cell reaching
    /// one audience's cell of several gets the audience in it (`accounts-db-ru.retail-bank.svc`), as its ConfigMap does.
    static func localName(_ workload: String, of target: Cell, for dependent: Connection.Dependent) -> String {
        var name = workload
        if dependent.cell.audience == nil, let audience = target.audience { name = KubernetesName.fit("\(workload)-\(audience)") }
        return "\(KubernetesName.service(name)).\(dependent.namespace).svc"
    }

    /// How a database's primary is reached: by the address of its server, or its managed endpoint; nil when its
    /// cloud is not in the catalog, which a validated model rules out.
    private static func primaryRoute(_ index: Int, in topology: Topology) -> Connection.Route? {
        guard let infrastructure = DatabaseInfrastructure(index, in: topology) else { return nil }
        // The primary's resource comes first among the servers, and is the only managed database.
        let kind: ResourceKind = infrastructure.managed ? .managedDatabase : .databaseServer
        guard let primary = infrastructure.resources.first(where: { $0.kind == kind.rawValue }) else { return nil }
        let cloud = infrastructure.cloud.name
        return infrastructure.managed ? .managedEndpoint(cloud: cloud, database: primary.address) : .databaseServer(cloud: cloud, server: primary.address)
    }
}
