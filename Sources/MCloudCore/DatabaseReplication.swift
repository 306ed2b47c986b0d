/// How one database VM takes part in its cell's replication, as its rendered `DatabaseServer` body says
/// (`spec.replication`): names only. The provider derives the replication user's password from them and, for a
/// standby, looks up the primary's address at create time (docs/databases.md, "Standbys").
public enum DatabaseReplication: Sendable, Hashable {
    /// The primary: each standby's name (its replication slot and `application_name` on PostgreSQL) and the addresses
    /// the standbys connect from, which the primary admits for replication only.
    case primary(standbys: [String], cidrs: [String])
    /// A standby: its own name, and the primary's server name (a name of the primary's certificate) and port.
    case standby(name: String, primary: String, port: Int)

    /// `accounts-db.1`'s name on the primary, `standby_1`: lowercase letters, digits and `_`, which PostgreSQL takes
    /// unquoted as a slot and in `synchronous_standby_names`.
    public static func standbyName(copy: Int) -> String { "standby_\(copy)" }
}
