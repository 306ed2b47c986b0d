public import MCloudCore
import MCloudDatabaseEngines

/// A database whose clients mcloud wires but gives no credentials of their own yet: a VM of an engine whose recipes
/// make no TLS or users (MongoDB), or a managed database. `plan` says so on the database's cell, naming
/// the clients that reach it from another cloud, rather than leave the gap silent (docs/connectivity.md, "Checked at
/// plan time").
public struct CredentialGap: Sendable, Hashable {
    /// As the plan names cells: `analytics`, `payments-db@ru`.
    public var cell: String
    public var message: String

    /// One per database cell, sorted by cell.
    public static func gaps(_ connections: [Connection]) -> [CredentialGap] {
        var found: [String: (reason: String, crossing: Set<String>)] = [:]
        for connection in connections {
            guard case .database(let cell, let engineName, _) = connection.target else { continue }
            let reason: String
            switch connection.route {
            case .databaseServer:
                guard let engine = Engine(named: engineName), engine.passwordScheme == nil else { continue }
                reason = "its clients connect without TLS and without users of their own: mcloud makes them on \(engine.title) VMs not yet "
                    + "(it does on PostgreSQL, Postgres Pro, Redis, MariaDB/MySQL and ClickHouse VMs)"
            case .managedEndpoint:
                reason = "its clients get its address but no user, password or Secret: mcloud makes none on a managed database yet; give them credentials yourself"
            default:
                continue
            }
            var entry = found[cell.description] ?? (reason, [])
            if connection.crossesClouds { entry.crossing.insert(connection.dependent.description) }
            found[cell.description] = entry
        }
        return found.sorted { $0.key < $1.key }.map { cell, entry in
            let verb = entry.crossing.count == 1 ? "reaches" : "reach"
            let crossing = entry.crossing.isEmpty ? "" : "; \(entry.crossing.sorted().joined(separator: ", ")) \(verb) it from another cloud"
            return CredentialGap(cell: cell, message: entry.reason + crossing)
        }
    }
}
