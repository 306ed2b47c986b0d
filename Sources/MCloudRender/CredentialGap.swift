public import MCloudCore
import MCloudDatabaseEngines

/// A database whose clients mcloud wires but gives no credentials of their own yet: a VM of an engine whose recipes
/// make no TLS or users (MongoDB), or a managed database whose cloud makes no users through its API; or one whose
/// clients get users but cannot verify the server (Trove's MySQL, `ManagedAccess`). `plan` says so on the database's
/// cell, naming the clients that reach it from another cloud, rather than leave the gap silent (docs/connectivity.md,
/// "Checked at plan time").
public struct CredentialGap: Sendable, Hashable {
    /// As the plan names cells: `analytics`, `payments-db@ru`.
    public var cell: String
    public var message: String

    /// One per database cell, sorted by cell; `apis` gives each cloud's API (a managed database's users depend on it).
    public static func gaps(_ connections: [Connection], apis: [String: Cloud.API]) -> [CredentialGap] {
        var found: [String: (reason: String, crossing: Set<String>)] = [:]
        for connection in connections {
            guard case .database(let cell, let engineName, _) = connection.target else { continue }
            let reason: String
            switch connection.route {
            case .databaseServer:
                guard let engine = Engine(named: engineName), engine.passwordScheme == nil else { continue }
                reason = "its clients connect without TLS and without users of their own: mcloud makes them on \(engine.title) VMs not yet "
                    + "(it does on PostgreSQL, Postgres Pro, Redis, MariaDB/MySQL and ClickHouse VMs)"
            case .managedEndpoint(let cloud, _):
                reason = managedReason(api: apis[cloud], engine: Engine(named: engineName))
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

    private static func managedReason(api: Cloud.API?, engine: Engine?) -> String {
        if let api, ManagedAccess.makesUsers(api: api, engine: engine) {
            return "its clients get users of their own through Trove's API, but they cannot verify the server: Trove lets nobody give "
                + "its MySQL a certificate, so it serves the one it made itself and they connect with ssl-mode=REQUIRED (encrypted, unverified)"
        }
        let why = api == .openstack ? "Trove's user API serves only its mysql datastore" : "mcloud makes none on a managed database of this cloud yet"
        return "its clients get its address but no user, password or Secret: \(why); give them credentials yourself, or run it on VMs "
            + "(hosting: vm), where mcloud makes them"
    }
}
