public import Foundation

/// The process asking for a lock, and how to tell whether another process of this host still runs. A value, so
/// tests can play another process without spawning one.
public struct ProcessIdentity: Sendable {
    public var pid: Int32
    public var host: String
    public var user: String
    public var now: @Sendable () -> Date
    public var isRunning: @Sendable (Int32) -> Bool

    public init(pid: Int32, host: String, user: String, now: @escaping @Sendable () -> Date, isRunning: @escaping @Sendable (Int32) -> Bool) {
        self.pid = pid
        self.host = host
        self.user = user
        self.now = now
        self.isRunning = isRunning
    }

    /// This process, its host name and user, the system clock, and `kill(pid, 0)` for liveness.
    public static var current: ProcessIdentity {
        ProcessIdentity(
            pid: getpid(), host: ProcessInfo.processInfo.hostName,
            user: ProcessInfo.processInfo.environment["USER"] ?? String(getuid()),
            now: { Date() },
            // EPERM means the process exists but belongs to someone else: still running.
            isRunning: { pid in kill(pid, 0) == 0 || errno == EPERM }
        )
    }
}
