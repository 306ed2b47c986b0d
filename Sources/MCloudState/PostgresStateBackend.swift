public import MCloudProvider
import Foundation
import Synchronization

/// The team backend: the state of one workspace in a PostgreSQL table, the replaced versions in a history table,
/// and the lock as a session-level advisory lock held by this backend's connection plus a row naming the holder.
/// The advisory lock makes the lock die with its holder's session (a crash, a lost network); the row says who
/// holds it. Safe to use from several threads: one mutex serializes all use of the lock session. See docs/state.md.
public final class PostgresStateBackend: StateBackend {
    /// The workspace, from the URL's `workspace` parameter (default `default`).
    public var workspace: String { url.workspace }
    /// The URL without its password or connection parameters, as messages name it.
    public var source: String { url.source }

    let url: PostgresURL
    let identity: ProcessIdentity
    /// The connection holding the advisory lock, with the lock it took; nil while this backend holds no lock.
    private let session = Mutex<LockSession?>(nil)

    struct LockSession {
        let connection: PostgresConnection
        let lock: LockInfo
    }

    /// Reads the URL; nothing connects until the first operation. A malformed URL or workspace is an error that
    /// never quotes the password.
    public init(url: String, identity: ProcessIdentity = .current) throws(StateError) {
        self.url = try PostgresURL(url)
        self.identity = identity
    }

    public func read() throws(StateError) -> State? {
        try withConnection { connection throws(StateError) -> State? in
            guard let body = try connection.queryBytes(PostgresSchema.readState, [workspace], for: "read the state") else { return nil }
            return try State.parse(body, source: source)
        }
    }

    /// In one transaction on the lock's connection: checks the lock row is still this backend's, then the stored
    /// state (a damaged or newer-format one is never overwritten, another lineage or a serial not above it is
    /// refused), keeps the stored version in the history table and stores the new one.
    public func write(_ state: State) throws(StateError) {
        try withOwnLock(for: "write the state") { connection, _ throws(StateError) in
            let storedBody = try connection.queryBytes(PostgresSchema.readStateForUpdate, [workspace], for: "write the state")
            let replacement = try StateReplacement(of: storedBody, by: state, source: source)
            if let stored = replacement.stored {
                try connection.query(PostgresSchema.keepReplaced, [workspace, stored.lineage, String(stored.serial)], for: "write the state")
                try connection.query(PostgresSchema.trimHistory, [workspace], for: "write the state")
            }
            try connection.query(PostgresSchema.preferLZ4, for: "write the state")
            let body = String(decoding: replacement.bytes, as: UTF8.self)
            try connection.query(PostgresSchema.storeState, [workspace, state.lineage, String(state.serial), body], for: "write the state")
        }
    }

    /// Takes the advisory lock on a new connection without waiting, then records the holder (replacing the row of
    /// a holder whose session died). The connection stays open until `unlock`.
    public func lock(operation: String) throws(StateError) -> LockInfo {
        try session.withLock { session throws(StateError) -> LockInfo in
            if let held = session {
                // Still held unless its session was ended (force-unlocked from elsewhere, connection lost).
                _ = try? held.connection.query("SELECT 1", for: "check the lock")
                guard held.connection.isBroken else { throw .locked(path: source, holder: held.lock, holderIsGone: false) }
                session = nil
            }
            let connection = try open()
            let mine = LockInfo(operation: operation, identity: identity)
            // Twice: the holder may be between taking the advisory lock and writing its row, or just releasing.
            for attempt in 0..<2 {
                if try connection.query(PostgresSchema.tryAdvisoryLock, [String(url.lockKey)], for: "take the lock").first?[0] == "t" {
                    let values = [workspace, mine.id, String(mine.pid), mine.host, mine.operation, mine.who, String(Int64(mine.created.timeIntervalSince1970))]
                    try connection.query(PostgresSchema.storeLock, values, for: "take the lock")
                    session = LockSession(connection: connection, lock: mine)
                    return mine
                }
                if let holder = try lockRow(connection, PostgresSchema.readLock) {
                    let gone = holder.host == identity.host && !identity.isRunning(holder.pid)
                    throw .locked(path: source, holder: holder, holderIsGone: gone)
                }
                if attempt == 0 { usleep(200_000) }
            }
            throw .lockUnreadable(path: source, reason: "its advisory lock is held by a session that wrote no \(PostgresSchema.locksTable) row")
        }
    }

    public func unlock(id: String) throws(StateError) {
        try withOwnLock(for: "release the lock", releasing: true) { connection, holder throws(StateError) in
            guard holder.id == id else { throw .lockIDMismatch(path: source, given: id, holder: holder) }
            try connection.query(PostgresSchema.deleteLock, [workspace, id], for: "release the lock")
        }
    }

    /// Ends the holder's server session (`pg_terminate_backend`), which releases its advisory lock and makes the
    /// holder's next statement fail instead of writing over the next holder's state, then deletes the row.
    public func forceUnlock(id: String) throws(StateError) {
        try session.withLock { session throws(StateError) in
            let connection = try open()
            try transaction(connection, for: "force-unlock") { () throws(StateError) in
                guard let holder = try lockRow(connection, PostgresSchema.readLockForUpdate) else { throw .notLocked(path: source) }
                guard holder.id == id else { throw .lockIDMismatch(path: source, given: id, holder: holder) }
                for row in try connection.query(PostgresSchema.advisoryHolders, [String(url.lockKey)], for: "force-unlock") {
                    guard let pid = row[0] else { continue }
                    guard try connection.query(PostgresSchema.terminate, [pid], for: "force-unlock").first?[0] == "t" else {
                        throw .database(source: source, operation: "force-unlock", message: "the holder's server session (pid \(pid)) did not end within 5 s")
                    }
                }
                try connection.query(PostgresSchema.deleteLock, [workspace, id], for: "force-unlock")
            }
            if session?.lock.id == id { session = nil }
        }
    }

    /// Who holds the lock now, or nil when nobody does.
    public func currentLock() throws(StateError) -> LockInfo? {
        try withConnection { connection throws(StateError) -> LockInfo? in try lockRow(connection, PostgresSchema.readLock) }
    }

    /// Runs `body` on the lock's connection when this backend holds the lock, else on a new connection. A lock
    /// connection found broken (its session was terminated) is dropped and `body` runs again on a new one.
    private func withConnection<Result: Sendable>(_ body: @Sendable (PostgresConnection) throws(StateError) -> Result) throws(StateError) -> Result {
        try session.withLock { session throws(StateError) -> Result in
            if let held = session {
                do throws(StateError) {
                    return try body(held.connection)
                } catch {
                    guard held.connection.isBroken else { throw error }
                    session = nil
                }
            }
            return try body(try open())
        }
    }

    /// Runs `body` in a transaction on the lock's connection after checking there that the lock row is still this
    /// backend's (it passes that row). Without a lock, or with one that was broken, says who holds the lock instead;
    /// a broken lock's connection is closed. `releasing` closes the connection after `body` succeeds.
    private func withOwnLock(
        for purpose: String, releasing: Bool = false, _ body: @Sendable (PostgresConnection, LockInfo) throws(StateError) -> Void
    ) throws(StateError) {
        try session.withLock { session throws(StateError) in
            if let held = session {
                do throws(StateError) {
                    try transaction(held.connection, for: purpose) { () throws(StateError) in
                        let holder = try lockRow(held.connection, PostgresSchema.readLockForShare)
                        guard let holder, holder.id == held.lock.id else { throw .notLocked(path: source) }
                        try body(held.connection, holder)
                    }
                    if releasing {
                        try held.connection.query(PostgresSchema.advisoryUnlock, [String(url.lockKey)], for: purpose)
                        session = nil
                    }
                    return
                } catch {
                    guard error == .notLocked(path: source) || held.connection.isBroken else { throw error }
                    session = nil
                }
            }
            let connection = try open()
            guard let holder = try lockRow(connection, PostgresSchema.readLock) else { throw .notLocked(path: source) }
            throw .lockedByAnotherProcess(path: source, holder: holder)
        }
    }

    /// A new connection with the tables in place, created on first use under a transaction-level advisory lock.
    private func open() throws(StateError) -> PostgresConnection {
        let connection = try PostgresConnection(url)
        guard try connection.query(PostgresSchema.tablesExist, for: "check the tables").first?[0] != "t" else { return connection }
        try transaction(connection, for: "create the tables") { () throws(StateError) in
            try connection.query(PostgresSchema.creationLock, [String(PostgresSchema.creationLockKey)], for: "create the tables")
            for statement in PostgresSchema.createTables { try connection.query(statement, for: "create the tables") }
        }
        return connection
    }

    private func transaction(_ connection: PostgresConnection, for purpose: String, _ body: () throws(StateError) -> Void) throws(StateError) {
        try connection.query("BEGIN", for: purpose)
        do throws(StateError) {
            try body()
            try connection.query("COMMIT", for: purpose)
        } catch {
            if !connection.isBroken { _ = try? connection.query("ROLLBACK", for: purpose) }
            throw error
        }
    }

    /// The lock row of this workspace, or nil; a row that does not name a holder is reported, never used.
    private func lockRow(_ connection: PostgresConnection, _ sql: String) throws(StateError) -> LockInfo? {
        guard let row = try connection.query(sql, [workspace], for: "read the lock").first else { return nil }
        let fields = row.map { $0 ?? "" }
        guard fields.count == 6, let pid = Int32(fields[1]), pid > 0, let created = Int64(fields[5]),
              !fields[0].isEmpty, !fields[2].isEmpty, !fields[3].isEmpty, !fields[4].isEmpty else {
            throw .lockUnreadable(path: source, reason: "its \(PostgresSchema.locksTable) row has an empty field or a pid that is not a process ID")
        }
        return LockInfo(
            id: fields[0], pid: pid, host: fields[2], operation: fields[3], who: fields[4],
            created: Date(timeIntervalSince1970: TimeInterval(created))
        )
    }
}
