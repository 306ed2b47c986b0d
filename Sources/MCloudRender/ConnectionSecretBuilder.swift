import MCloudCore
import MCloudDatabaseEngines

/// Which connections get a Secret: those to a database on VMs whose engine's recipes make users (PostgreSQL,
/// Postgres Pro, Redis, MariaDB/MySQL, ClickHouse), as its server's `spec.access` lists every such dependent, and
/// those to a managed database whose cloud makes users through its API (`ManagedAccess`: Trove's MySQL), whose
/// `spec.access` lists them too. Any other managed database, and an engine whose recipes ignore `spec.access`, get
/// none: no user exists there for the password to open.
enum ConnectionSecretBuilder {
    /// The folder each connection's CA is mounted in: `/etc/mcloud/tls/<connection>/ca.crt`.
    static let mountRoot = "/etc/mcloud/tls"

    /// Sorted by cloud and path.
    static func secrets(_ connections: [Connection], in topology: Topology) -> [ConnectionSecret] {
        connections.compactMap { secret($0, in: topology) }.sorted { ($0.cloud, $0.path) < ($1.cloud, $1.path) }
    }

    private static func secret(_ connection: Connection, in topology: Topology) -> ConnectionSecret? {
        guard case .database(let cell, let engineName, let port?) = connection.target, let engine = Engine(named: engineName),
            let database = topology.databases.first(where: { $0.cell == cell })
        else { return nil }
        let tls: ClientAccess.TLS
        switch connection.route {
        case .databaseServer:
            guard engine.passwordScheme != nil else { return nil }
            tls = .verified
        case .managedEndpoint:
            guard let api = topology.clouds[database.primary]?.api, ManagedAccess.makesUsers(api: api, engine: engine) else { return nil }
            tls = ManagedAccess.tls(api: api, engine: engine)
        default:
            return nil
        }
        let dependent = connection.dependent
        let local = String(connection.name.prefix { $0 != "." })
        let user = DatabaseAccess.engineName(dependent.cell.name)
        let mountPath = "\(mountRoot)/\(local)"
        let edge = ClientAccess.Edge(
            application: topology.application, cell: cell.name, service: dependent.cell.name, engine: engine, host: connection.name, port: port,
            user: user, database: user, authorityPath: "\(mountPath)/\(ClientAccess.authorityKey)", tls: tls
        )
        return ConnectionSecret(
            cloud: dependent.cloud, namespace: dependent.namespace, name: KubernetesName.fit("\(local)-\(dependent.cell.workload)"),
            environmentPrefix: EndpointsBuilder.prefix(database, for: dependent.cell), mountPath: mountPath, edge: edge,
            dependent: dependent.cell
        )
    }
}
