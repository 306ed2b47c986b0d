public import MCloudCore

/// The connections a plan will create (docs/connectivity.md), one line each: the edge in its cluster, the name the
/// dependent uses, and the route; `explain` prints a cell's own with the same lines.
public enum ConnectionsView {
    /// Empty when there are none.
    public static func render(_ connections: [Connection]) -> String {
        guard !connections.isEmpty else { return "" }
        let databases = connections.filter { if case .database = $0.target { true } else { false } }.count
        let crossing = connections.filter(\.crossesClouds).count
        var text = "Connections (\(connections.count): \(databases) to databases, \(connections.count - databases) to services; \(crossing) cross clouds)\n\n"
        for connection in connections { text += "  \(line(connection))\n" }
        return text
    }

    /// `payments-api@eu@aws-irl -> payments-db@eu as payments-db.retail-bank-eu.svc: server in gcore-lux (its address once
    /// applied), postgresql 5432, crosses clouds from 203.0.113.16/28`.
    public static func line(_ connection: Connection) -> String {
        var parts = [route(connection.route)]
        if case .database(_, let engine, let port) = connection.target { parts.append(port.map { "\(engine) \($0)" } ?? engine) }
        if connection.crossesClouds {
            parts.append(connection.egressCIDRs.isEmpty ? "crosses clouds" : "crosses clouds from \(connection.egressCIDRs.joined(separator: ", "))")
        }
        return "\(connection.edge) as \(connection.name): \(parts.joined(separator: ", "))"
    }

    static func route(_ route: Connection.Route) -> String {
        switch route {
        case .databaseServer(let cloud, _): "server in \(cloud) (its address once applied)"
        case .managedEndpoint(let cloud, _): "managed endpoint in \(cloud) (its host once applied)"
        case .clusterService: "its Service in this cluster"
        case .clusterSet(let set, let clouds): "cluster set \(set), from \(clouds.joined(separator: ", "))"
        case .ingress(let clouds, let port): "its Ingress in \(clouds.joined(separator: ", ")) on port \(port) (addresses once applied)"
        }
    }
}
