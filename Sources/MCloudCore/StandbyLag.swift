/// One standby as its primary's replication report saw it (docs/databases.md, "Lag"): what `mcloud backups` and
/// `mcloud status` show and flag.
public struct StandbyLag: Sendable, Hashable {
    /// The standby's name (PostgreSQL, MariaDB/MySQL) or address and port (Redis).
    public var name: String
    /// `streaming` (PostgreSQL, MariaDB/MySQL) or `online` (Redis) when it follows; anything else while it catches up
    /// or does not follow (MariaDB/MySQL: `sql-stopped`, `connecting`, `io-stopped`, `unreachable`).
    public var state: String
    /// `sync`, `quorum`, `potential`, `semi-sync` or `async`.
    public var sync: String
    public var lagSeconds: Double
    /// What the standby has not replayed yet.
    public var lagBytes: Int

    public init(name: String, state: String, sync: String, lagSeconds: Double, lagBytes: Int) {
        self.name = name
        self.state = state
        self.sync = sync
        self.lagSeconds = lagSeconds
        self.lagBytes = lagBytes
    }

    public var follows: Bool { state == "streaming" || state == "online" }
}
