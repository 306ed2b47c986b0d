public import Foundation

/// Who holds a state lock: what the lock file says, so a second mcloud can tell the user whom it is waiting for.
public struct LockInfo: Sendable, Hashable {
    /// Random per lock; `mcloud state force-unlock ID` must name it, so a lock is never broken by mistake.
    public var id: String
    public var pid: Int32
    public var host: String
    /// The command that took the lock, such as `apply`.
    public var operation: String
    /// The user the holding process runs as.
    public var who: String
    public var created: Date

    public init(id: String, pid: Int32, host: String, operation: String, who: String, created: Date) {
        self.id = id
        self.pid = pid
        self.host = host
        self.operation = operation
        self.who = who
        self.created = created
    }

    /// One line naming the holder, for error messages.
    public var summary: String {
        "`\(operation)` (lock ID \(id), pid \(pid) on host \(host), user \(who), since \(Self.timestamp(created)))"
    }

    /// The time as lock files and messages write it: ISO 8601, whole seconds.
    package static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}
