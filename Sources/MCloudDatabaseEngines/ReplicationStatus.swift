public import MCloudCore

/// What a primary with standbys writes to `<server>/replication.json` in its DR bucket every minute
/// (`ReplicationReport`): each standby connected as the primary sees it, how far behind it has replayed, and how many
/// it should see. `mcloud backups` shows it and flags a standby missing or behind, and a report that stopped.
public struct ReplicationStatus: Sendable, Hashable {
    public typealias Standby = StandbyLag

    public var server: String
    /// When the primary wrote it, UTC seconds since 1970.
    public var at: Int
    public var expected: Int
    public var standbys: [Standby]
    /// What went wrong reading the engine; nil when nothing did.
    public var error: String?

    /// A report is written every minute: five missed ones mean the primary or its way to the bucket is gone.
    public static let staleAfter = 300
    /// A standby further behind than this is flagged: what losing the primary now would lose, at the least.
    public static let lagLimit = 60.0

    public init(server: String, at: Int, expected: Int, standbys: [Standby], error: String? = nil) {
        self.server = server
        self.at = at
        self.expected = expected
        self.standbys = standbys
        self.error = error
    }

    /// The report's JSON; nil when it is not one.
    public init?(json text: String) {
        guard let document = try? JSONParser.parse(Array(text.utf8)), let server = document["server"]?.stringValue,
              let at = document["at"]?.stringValue.flatMap(BackupStatus.time), let expected = document["expected"]?.intValue,
              case .array(let rows)? = document["standbys"] else { return nil }
        var standbys: [Standby] = []
        for row in rows {
            guard let name = row["name"]?.stringValue, let state = row["state"]?.stringValue, let sync = row["sync"]?.stringValue,
                  let lag = row["lagSeconds"]?.doubleValue, let bytes = row["lagBytes"]?.intValue else { return nil }
            standbys.append(Standby(name: name, state: state, sync: sync, lagSeconds: lag, lagBytes: bytes))
        }
        self.init(server: server, at: at, expected: expected, standbys: standbys, error: document["error"]?.stringValue)
    }

    /// Why the standbys cannot be relied on at `now`; empty when all follow, close behind, in a fresh report.
    public func problems(now: Int) -> [String] {
        var problems: [String] = []
        if now - at > Self.staleAfter {
            problems.append("the replication report of \(server) is \(now - at) s old: its primary is down or cannot reach the bucket")
        }
        if let error { problems.append("the replication report of \(server) says: \(error)") }
        let following = standbys.filter(\.follows).count
        if following < expected { problems.append("\(following) of \(expected) standbys of \(server) follow it") }
        for standby in standbys where standby.follows && standby.lagSeconds > Self.lagLimit {
            problems.append("standby \(standby.name) of \(server) is \(Int(standby.lagSeconds)) s behind")
        }
        return problems
    }
}
