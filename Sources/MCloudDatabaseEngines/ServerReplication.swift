public import MCloudCore
import MCloudSecrets

/// What a database VM of a cell with standbys is given to replicate over the cell's TLS (`ServerAccess`): its part
/// (`DatabaseReplication`), the replication user's verifier, which the primary keeps, that user's password, which a
/// standby logs in with, and on a standby the primary's address. Derived at create time (`ReplicationCredential`),
/// never in the plan.
public struct ServerReplication: Sendable {
    public var role: DatabaseReplication
    public var verifier: String
    /// The login to the primary. Every engine's standby writes it; a PostgreSQL primary writes it too, since a
    /// switchover makes it a standby (docs/databases.md, "Switchover"); the other engines' primaries never do.
    public var password: String?
    /// Where a standby connects to, which the provider looks up; nil when the primary's name resolves on the VM.
    public var primaryAddress: String?
    /// The public key (PEM) of the cell's switchover orders (`SwitchoverKey`), on every PostgreSQL member; nil on the
    /// other engines', which cannot switch over.
    public var switchoverKey: String?
    /// The cell the server is a member of (`payments-db@eu`), which a switchover order must name.
    public var cell = ""
    /// A MariaDB/MySQL primary's login to its standbys, which its replication report reads their lag with
    /// (`MySQLReplication.report`); nil on every other server.
    public var monitor: Monitor?

    /// The monitor account's password, which only the primary keeps, and its verifier, which the primary makes the
    /// account with, so that the account reaches each standby through the binary log.
    public struct Monitor: Sendable {
        public var password: String
        public var verifier: String

        init(root: SecretRoot, application: String, cell: String, scheme: PasswordVerifier.Scheme) throws(SecretsError) {
            let credential = try ReplicationCredential(root: root, application: application, cell: cell, account: ReplicationCredential.monitor)
            self.password = credential.password.value
            self.verifier = try credential.verifier(scheme)
        }
    }

    /// The names, addresses and CIDRs as rendering writes them: they go into the engine's configuration unquoted.
    static func validate(_ role: DatabaseReplication) throws(SecretsError) {
        switch role {
        case .primary(let standbys, _):
            for name in standbys where DatabaseAccess.engineName(name) != name {
                throw .invalidInput(reason: "spec.replication: \"\(name)\" is not an engine-safe standby name (lowercase letters, digits and _)")
            }
        case .standby(let name, let primary, let port, _):
            if DatabaseAccess.engineName(name) != name {
                throw .invalidInput(reason: "spec.replication: \"\(name)\" is not an engine-safe standby name (lowercase letters, digits and _)")
            }
            if !ServerAccess.isHostName(primary) { throw .invalidInput(reason: "spec.replication: the primary \"\(primary)\" is not a host name") }
            if !(1...65535).contains(port) { throw .invalidInput(reason: "spec.replication: port \(port) is not a TCP port") }
        }
        for cidr in role.cidrs where !ServerAccess.isCIDR(cidr) {
            throw .invalidInput(reason: "spec.replication: \"\(cidr)\" is not a CIDR")
        }
    }

    /// A standby's own name, or nil on the primary.
    var standbyName: String? {
        if case .standby(let name, _, _, _) = role { return name }
        return nil
    }
}

extension ServerReplication {
    init(root: SecretRoot, application: String, cell: String, role: DatabaseReplication, scheme: PasswordVerifier.Scheme) throws(SecretsError) {
        let credential = try ReplicationCredential(root: root, application: application, cell: cell)
        self.init(role: role, verifier: try credential.verifier(scheme), password: credential.password.value, primaryAddress: nil)
        self.cell = cell
    }

    /// The settings a standby's `follow` step reads from `/etc/mcloud/database.conf`: nothing secret.
    var settings: [(name: String, value: String)] {
        guard case .standby(let name, let primary, let port, _) = role else { return [] }
        // MCLOUD_SERVER_ID: the standby's MariaDB/MySQL `server_id`, unique in its cell.
        var pairs = [
            ("MCLOUD_STANDBY_NAME", name), ("MCLOUD_PRIMARY_HOST", primary), ("MCLOUD_PRIMARY_PORT", String(port)),
            ("MCLOUD_SERVER_ID", String(MySQLReplication.serverID(standby: name))),
        ]
        if let primaryAddress { pairs.append(("MCLOUD_PRIMARY_ADDRESS", primaryAddress)) }
        return pairs
    }
}
