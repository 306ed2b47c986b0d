import MCloudCore

/// What `mcloud-restore --recovery-point` writes to `<server>/restored.json` in the recovery point's bucket however
/// it ends (see `DatabaseUserData`): which backup, when the restore started and finished (UTC seconds since 1970),
/// and its error. A drill waits for it; a failover's server leaves it as its proof.
public struct RestoreReport: Sendable, Hashable {
    public var server: String
    public var object: String
    public var startedAt: Int
    public var finishedAt: Int
    /// Nil when the backup was loaded and the engine answered.
    public var error: String?

    public init(server: String, object: String, startedAt: Int, finishedAt: Int, error: String? = nil) {
        self.server = server
        self.object = object
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.error = error
    }

    /// The report's JSON; nil when it is not one.
    public init?(json bytes: [UInt8]) {
        guard let document = try? JSONParser.parse(bytes), let server = document["server"]?.stringValue, let object = document["object"]?.stringValue,
              let started = document["startedAt"]?.stringValue.flatMap(BackupStatus.time),
              let finished = document["finishedAt"]?.stringValue.flatMap(BackupStatus.time) else { return nil }
        self.init(server: server, object: object, startedAt: started, finishedAt: finished, error: document["error"]?.stringValue)
    }
}
