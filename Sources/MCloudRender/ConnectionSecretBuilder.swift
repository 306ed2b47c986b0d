import MCloudCore
import MCloudDatabaseEngines

/// Which connections get a Secret: those to a database on VMs whose engine's recipes make users (PostgreSQL,
/// Postgres Pro, Redis, MariaDB/MySQL), as its server's `spec.access` lists every such dependent. A managed
/// database, and an engine whose recipes ignore `spec.access`, get none yet: no user exists there for the password
/// to open.
enum ConnectionSecretBuilder {
    /// The folder each connection's CA is mounted in: `/etc/mcloud/tls/<connection>/ca.crt`.
    static let mountRoot = "/etc/mcloud/tls"

    /// Sorted by cloud and path.
    static func secrets(_ connections: [Connection], in topology: Topology) -> [ConnectionSecret] {
        connections.compactMap { secret($0, in: topology) }.sorted { ($0.cloud, $0.path) < ($1.cloud, $1.path) }
    }

    private static func secret(_ connection: Connection, in topology: Topology) -> ConnectionSecret? {
        guard case .databaseServer = connection.route, case .database(let cell, let engineName, let port?) = connection.target,
            let engine = Engine(named: engineName), engine.passwordScheme != nil,
            let database = topology.databases.first(where: { $0.cell == cell })
        else { return nil }
        let dependent = connection.dependent
        let local = String(connection.name.prefix { $0 != "." })
        let user = DatabaseAccess.engineName(dependent.cell.name)
        let mountPath = "\(mountRoot)/\(local)"
        let edge = ClientAccess.Edge(
            application: topology.application, cell: cell.name, service: dependent.cell.name, engine: engine, host: connection.name, port: port,
            user: user, database: user, authorityPath: "\(mountPath)/\(ClientAccess.authorityKey)"
        )
        return ConnectionSecret(
            cloud: dependent.cloud, namespace: dependent.namespace, name: KubernetesName.fit("\(local)-\(dependent.cell.workload)"),
            environmentPrefix: EndpointsBuilder.prefix(database, for: dependent.cell), mountPath: mountPath, edge: edge,
            dependent: dependent.cell
        )
    }
}
