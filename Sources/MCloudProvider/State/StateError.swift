import Foundation

/// Why the state could not be read, written, locked or unlocked. Every case names the file (or URL scheme) it is
/// about and never a credential, so the message can go straight to the user.
public enum StateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stored state is not a state mcloud can read: not JSON, or a field of the wrong shape.
    case corrupted(source: String, reason: String)
    /// The stored state was written by a newer mcloud with a format this one does not know.
    case newerFormat(source: String, version: Int)
    /// The state being written belongs to another lineage (another project or a recreated state).
    case lineageMismatch(path: String, stored: String, writing: String)
    /// The state being written is not newer than the stored one: someone wrote in between.
    case staleSerial(path: String, stored: Int, writing: Int)
    /// The state being written would not read back: a bug in whoever built it.
    case unreadableResult(path: String, reason: String)
    /// Another operation holds the lock; `holderIsGone` when it is a process of this host that no longer runs.
    case locked(path: String, holder: LockInfo, holderIsGone: Bool)
    /// A lock file exists but does not say who holds it.
    case lockUnreadable(path: String, reason: String)
    /// A write or unlock without the lock being held.
    case notLocked(path: String)
    /// A write or unlock from a process that does not hold the lock.
    case lockedByAnotherProcess(path: String, holder: LockInfo)
    /// An unlock naming an ID other than the holder's.
    case lockIDMismatch(path: String, given: String, holder: LockInfo)
    /// A system call failed.
    case system(operation: String, path: String, errno: Int32)
    /// The database of a `postgres://` state could not be reached or refused a statement; `source` is the URL without
    /// its password and `message` is the server's or libpq's, scrubbed of the URL's secrets.
    case database(source: String, operation: String, message: String)
    /// A `--state` value mcloud cannot use.
    case invalidURL(String)

    public var description: String {
        switch self {
        case .corrupted(let source, let reason):
            return "\(source) is not a valid mcloud state: \(reason); mcloud will neither use nor overwrite it (\(Self.recovery(source)))"
        case .newerFormat(let source, let version):
            return "\(source) has state format \(version), written by a newer mcloud; upgrade mcloud (this one reads format \(State.formatVersion))"
        case .lineageMismatch(let path, let stored, let writing):
            return "refusing to write \(path): it holds lineage \(stored), the state being written has lineage \(writing) (a different state, not a newer version of this one)"
        case .staleSerial(let path, let stored, let writing):
            return "refusing to write \(path): it is at serial \(stored) and the state being written has serial \(writing); it changed since it was read, so plan again"
        case .unreadableResult(let path, let reason):
            return "refusing to write \(path): the new state would not read back (\(reason)); this is an mcloud bug, please report it"
        case .locked(let path, let holder, let holderIsGone):
            let base = "state \(path) is locked by \(holder.summary)"
            guard holderIsGone else { return base + "; try again when it finishes" }
            return base + "; that process no longer runs on this host, so the lock is probably stale: if no mcloud uses this state, run `mcloud state force-unlock \(holder.id)`"
        case .lockUnreadable(let path, let reason):
            guard path.hasPrefix("postgres") else {
                return "state lock \(path) exists but cannot be read (\(reason)); if no mcloud uses this state, delete that file by hand"
            }
            return "state lock \(path) exists but cannot be read (\(reason)); if no mcloud uses this state, delete its \(PostgresTableNames.locks) row and end the server session holding its advisory lock (see docs/state.md)"
        case .notLocked(let path):
            return "state \(path) is not locked; take the lock before changing the state"
        case .lockedByAnotherProcess(let path, let holder):
            return "state \(path) is locked by another process: \(holder.summary)"
        case .lockIDMismatch(let path, let given, let holder):
            return "lock ID \(given) does not match the lock on \(path), held by \(holder.summary)"
        case .system(let operation, let path, let errno):
            return "cannot \(operation) \(path): \(String(cString: strerror(errno)))"
        case .database(let source, let operation, let message):
            return "cannot \(operation) (\(source)): \(message)"
        case .invalidURL(let reason):
            return "invalid state URL: \(reason)"
        }
    }

    /// Where an earlier version of a damaged state is kept: the file backend's backup, the database's history table.
    private static func recovery(_ source: String) -> String {
        guard source.hasPrefix("postgres") else { return "fix it by hand or restore \(source).backup" }
        return "fix its row in \(PostgresTableNames.state) by hand or restore an earlier version from \(PostgresTableNames.history)"
    }
}

/// The tables of the `postgres://` backend, named here because the recovery advice of its errors names them.
package enum PostgresTableNames {
    package static let state = "mcloud_state"
    package static let history = "mcloud_state_history"
    package static let locks = "mcloud_locks"
}
