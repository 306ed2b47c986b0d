/// How one database VM takes part in its cell's replication, as its rendered `DatabaseServer` body says
/// (`spec.replication`): names only. The provider derives the replication user's password from them and, for a
/// standby, looks up the primary's address at create time (docs/databases.md, "Standbys").
public enum DatabaseReplication: Sendable, Hashable {
    /// The primary: each standby's name (its replication slot and `application_name` on PostgreSQL) and the addresses
    /// the standbys connect from, which the primary admits for replication only.
    case primary(standbys: [String], cidrs: [String])
    /// A standby: its own name, the primary's server name (a name of the primary's certificate) and port, and the
    /// addresses the cell's other members connect from, which it admits for replication once a switchover makes it
    /// the primary (docs/databases.md, "Switchover").
    case standby(name: String, primary: String, port: Int, cidrs: [String])

    /// `accounts-db.1`'s name on the primary, `standby_1`: lowercase letters, digits and `_`, which PostgreSQL takes
    /// unquoted as a slot and in `synchronous_standby_names`. The primary's own name once a switchover makes it a
    /// standby is `standbyName(copy: 0)`, `standby_0`.
    public static func standbyName(copy: Int) -> String { "standby_\(copy)" }

    /// RFC 1918's ranges: where a cell's members admit each other from for replication (its security group narrows
    /// that to the members), and a body rendered before a standby had `cidrs` reads as.
    public static let privateRanges = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]

    /// The addresses this member admits the cell's other members from for replication, whatever its role.
    public var cidrs: [String] {
        switch self {
        case .primary(_, let cidrs), .standby(_, _, _, let cidrs): cidrs
        }
    }
}
