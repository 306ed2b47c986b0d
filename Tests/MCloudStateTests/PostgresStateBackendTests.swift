import Foundation
import MCloudCore
@testable import MCloudState
import Synchronization
import Testing
import MCloudProvider

/// The postgres:// backend against the real server of `scripts/testbed/postgres.sh`, each test in a workspace of
/// its own. The same behaviours as `FileStateBackendTests`, plus what only a database brings: another process's
/// session holding the lock, a holder that dies, a lock broken from elsewhere.
@Suite(.enabled(if: PostgresTestBed.runs, "no PostgreSQL test bed: run scripts/testbed/postgres.sh start"))
struct PostgresStateBackendTests {
    static func backend(_ url: String? = nil, pid: Int32 = getpid()) throws -> PostgresStateBackend {
        try PostgresStateBackend(url: url ?? PostgresTestBed.workspaceURL(), identity: FileStateBackendTests.identity(pid: pid))
    }

    /// Another holder on the same workspace: a second backend with its own connection, as another process has.
    static func other(_ backend: PostgresStateBackend, pid: Int32 = 4242) throws -> PostgresStateBackend {
        try Self.backend(url(of: backend), pid: pid)
    }

    static func url(of backend: PostgresStateBackend) throws -> String {
        guard let url = PostgresTestBed.url else { throw PostgresTestBed.Missing(description: "no test bed") }
        return url + "?workspace=" + backend.workspace
    }

    static func written(_ backend: PostgresStateBackend) throws -> State {
        try StateBackendContract.written(backend)
    }

    static func contract() throws -> StateBackendContract {
        let backend = try backend()
        return StateBackendContract(backend: backend, name: backend.source, lockName: backend.source, currentLock: backend.currentLock)
    }

    static func row(_ backend: PostgresStateBackend) throws -> [String?]? {
        try PostgresTestBed.sql(url(of: backend), "SELECT body, lineage, serial FROM mcloud_state WHERE workspace = $1", [backend.workspace]).first
    }

    static func historySerials(_ backend: PostgresStateBackend) throws -> [String?] {
        try PostgresTestBed.sql(url(of: backend), "SELECT serial FROM mcloud_state_history WHERE workspace = $1 ORDER BY serial", [backend.workspace])
            .map { $0[0] }
    }

    @Test func readingAWorkspaceNeverWrittenGivesNil() throws {
        let backend = try Self.backend()
        #expect(try backend.read() == nil)
        #expect(try backend.currentLock() == nil)
    }

    @Test func aWrittenStateReadsBackEqualAndTheRowHoldsItsExactBytes() throws {
        let backend = try Self.backend()
        let state = try Self.written(backend)
        #expect(try backend.read() == state)
        #expect(try Self.row(backend) == [state.serialized(), state.lineage, "1"])
        #expect(try Self.historySerials(backend) == [])
    }

    @Test func eachWriteKeepsTheReplacedVersionInTheHistoryUpToItsLimit() throws {
        let backend = try Self.backend()
        let lock = try backend.lock(operation: "apply")
        var state = State()
        for _ in 0..<(PostgresSchema.historyLimit + 2) {
            state = state.nextSerial()
            state.record(ResourceState(address: "r\(state.serial)", provider: "kubernetes", cloud: "vk-msk", providerID: "u", attributes: [:]))
            try backend.write(state)
        }
        try backend.unlock(id: lock.id)
        #expect(try backend.read() == state)
        #expect(try Self.historySerials(backend) == (2...(PostgresSchema.historyLimit + 1)).map { String($0) })
        let previous = try PostgresTestBed.sql(
            Self.url(of: backend), "SELECT body FROM mcloud_state_history WHERE workspace = $1 AND serial = $2", [backend.workspace, "\(state.serial - 1)"]
        )
        #expect(try State.parse(Array((previous.first?[0] ?? "").utf8), source: "history").resources.count == state.serial - 1)
    }

    /// A large body is compressed with LZ4 where the server has it (the bed's Debian PostgreSQL does): a
    /// fraction of pglz's size and faster to unpack on every read. The replaced body is copied on the server into
    /// the history byte for byte.
    @Test func aLargeStateIsStoredWithLZ4AndItsReplacedBytesKeptExactly() throws {
        let backend = try Self.backend()
        let lock = try backend.lock(operation: "apply")
        var state = State()
        var bodies: [String] = []
        for _ in 0..<2 {
            state = state.nextSerial()
            for index in 0..<200 {
                state.record(ResourceState(address: "r\(state.serial)-\(index)", provider: "kubernetes", cloud: "vk-msk", providerID: "u\(index)", attributes: [:]))
            }
            try backend.write(state)
            bodies.append(state.serialized())
        }
        try backend.unlock(id: lock.id)
        #expect(try backend.read() == state)
        let url = try Self.url(of: backend)
        let offersLZ4 = try PostgresTestBed.sql(url, "SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")
        let compression = try PostgresTestBed.sql(url, "SELECT pg_column_compression(body) FROM mcloud_state WHERE workspace = $1", [backend.workspace])
        #expect(compression == [[offersLZ4 == [["t"]] ? "lz4" : "pglz"]])
        let kept = try PostgresTestBed.sql(url, "SELECT body FROM mcloud_state_history WHERE workspace = $1", [backend.workspace])
        #expect(kept == [[bodies[0]]])
    }

    @Test func aStateOfAnotherLineageIsRefusedAndTheStoredOneKept() throws {
        try Self.contract().refusesAnotherLineageAndKeepsTheStoredState()
    }

    @Test(arguments: [1, 0])
    func aStateNotNewerThanTheStoredOneIsRefused(serial: Int) throws {
        try Self.contract().refusesAStateNotNewerThanTheStoredOne(serial: serial)
    }

    @Test(arguments: FileStateBackendTests.unreadable)
    func aStateThatWouldNotReadBackIsNeverWritten(state: State, reason: String) throws {
        try Self.contract().neverWritesAStateThatWouldNotReadBack(state, reason: reason)
    }

    /// The file backend's damaged documents, put in the row by hand as a bad migration or a hand edit would.
    @Test(arguments: FileStateBackendTests.damaged.indices)
    func aDamagedRowIsRefusedOnReadAndWriteAndLeftByteIdentical(index: Int) throws {
        let (_, text, error) = FileStateBackendTests.damaged[index]
        let backend = try Self.backend()
        // The backend makes its tables on first use: on a fresh database no other test may have used one yet.
        #expect(try backend.read() == nil)
        try PostgresTestBed.sql(
            Self.url(of: backend), "INSERT INTO mcloud_state (workspace, lineage, serial, body) VALUES ($1, 'x', 1, $2)", [backend.workspace, text]
        )
        #expect(throws: error(backend.source)) { try backend.read() }
        let lock = try backend.lock(operation: "apply")
        #expect(throws: error(backend.source)) { try backend.write(State().nextSerial()) }
        try backend.unlock(id: lock.id)
        #expect(try Self.row(backend) == [text, "x", "1"])
        #expect(try Self.historySerials(backend) == [])
    }

    @Test func aDamagedRowsMessagePointsAtTheHistoryTable() throws {
        let message = StateError.corrupted(source: "postgres://mcloud@db/mcloud?workspace=prod", reason: "serial: missing").description
        #expect(message == "postgres://mcloud@db/mcloud?workspace=prod is not a valid mcloud state: serial: missing; mcloud will neither use nor overwrite it (fix its row in mcloud_state by hand or restore an earlier version from mcloud_state_history)")
    }

    @Test func theLockRowSaysWhoHoldsTheLock() throws {
        let backend = try Self.backend()
        let lock = try backend.lock(operation: "apply")
        #expect(lock == LockInfo(id: lock.id, pid: getpid(), host: "ci-runner", operation: "apply", who: "anna", created: FileStateBackendTests.time))
        #expect(try backend.currentLock() == lock)
        let row = try PostgresTestBed.sql(
            Self.url(of: backend), "SELECT id, pid, host, operation, who, created = '2026-01-01T00:00:00Z' FROM mcloud_locks WHERE workspace = $1", [backend.workspace]
        )
        #expect(row == [[lock.id, "\(getpid())", "ci-runner", "apply", "anna", "t"]])
        try backend.unlock(id: lock.id)
        #expect(try backend.currentLock() == nil)
    }

    @Test func aSecondLockFailsAtOnceNamingTheHolder() throws {
        let backend = try Self.backend()
        let other = try Self.other(backend)
        let first = try backend.lock(operation: "apply")
        #expect(throws: StateError.locked(path: backend.source, holder: first, holderIsGone: false)) { try other.lock(operation: "destroy") }
        #expect(throws: StateError.locked(path: backend.source, holder: first, holderIsGone: false)) { try backend.lock(operation: "destroy") }
        try backend.unlock(id: first.id)
        let second = try other.lock(operation: "destroy")
        try other.unlock(id: second.id)
    }

    @Test func writingWithoutTheLockIsRefused() throws {
        try Self.contract().refusesChangesWithoutTheLock()
    }

    @Test func unlockAndForceUnlockNeedTheHoldersID() throws {
        try Self.contract().unlockingNeedsTheHoldersID()
    }

    @Test func anotherHolderCannotWriteOrUnlockButCanForceUnlockWithTheID() throws {
        let backend = try Self.backend()
        let lock = try backend.lock(operation: "apply")
        let other = try Self.other(backend)
        #expect(throws: StateError.lockedByAnotherProcess(path: backend.source, holder: lock)) { try other.write(State().nextSerial()) }
        #expect(throws: StateError.lockedByAnotherProcess(path: backend.source, holder: lock)) { try other.unlock(id: lock.id) }
        try other.forceUnlock(id: lock.id)
        #expect(try other.currentLock() == nil)
        // The first holder's session was ended: it learns that its lock was broken instead of writing over the next
        // holder's state.
        let taken = try other.lock(operation: "destroy")
        #expect(throws: StateError.lockedByAnotherProcess(path: backend.source, holder: taken)) { try backend.write(State().nextSerial()) }
        try other.write(State().nextSerial())
        try other.unlock(id: taken.id)
    }

    @Test func aHolderWhoseLockWasBrokenCanLockAgain() throws {
        let backend = try Self.backend()
        let lock = try backend.lock(operation: "apply")
        try Self.other(backend).forceUnlock(id: lock.id)
        let again = try backend.lock(operation: "apply")
        #expect(again.id != lock.id)
        #expect(try backend.currentLock() == again)
        try backend.unlock(id: again.id)
    }

    @Test func aLockHeldByAnotherProcessFailsFastNamingIt() throws {
        let backend = try Self.backend(pid: getpid())
        let holder = try LockHolderProcess(url: Self.url(of: backend), operation: "apply")
        let started = Date()
        let caught = PostgresTestBed.error { () throws(StateError) in _ = try backend.lock(operation: "plan") }
        #expect(Date().timeIntervalSince(started) < 2)
        guard case .locked(let path, let info, let gone) = caught else {
            Issue.record("expected the lock to be refused, got \(String(describing: caught))")
            return
        }
        #expect(path == backend.source && !gone)
        #expect(info.id == holder.lockID && info.pid == holder.pid && info.operation == "apply")
        #expect(info.host == ProcessIdentity.current.host)
        #expect(caught?.description.contains("`apply` (lock ID \(holder.lockID), pid \(holder.pid) on host \(info.host)") == true)
        #expect(throws: StateError.lockedByAnotherProcess(path: backend.source, holder: info)) { try backend.write(State().nextSerial()) }
        #expect(try holder.send("unlock") == "OK")
        let lock = try backend.lock(operation: "plan")
        try backend.unlock(id: lock.id)
    }

    /// A holder killed with SIGKILL runs no cleanup: its row stays, but its session, and with it the advisory lock,
    /// ends with its connection, so the next mcloud takes the lock and replaces the stale row.
    @Test func aKilledHoldersLockIsReclaimed() throws {
        let backend = try Self.backend()
        let holder = try LockHolderProcess(url: Self.url(of: backend), operation: "apply")
        #expect(try backend.currentLock()?.id == holder.lockID)
        kill(holder.pid, SIGKILL)
        var lock: LockInfo?
        let deadline = Date().addingTimeInterval(10)
        while lock == nil, Date() < deadline {
            do { lock = try backend.lock(operation: "apply") } catch {
                guard case .locked = error else { throw error }
                usleep(50_000)
            }
        }
        let taken = try #require(lock)
        #expect(try backend.currentLock() == taken)
        try backend.unlock(id: taken.id)
    }

    @Test func forceUnlockFromAnotherProcessEndsTheHoldersSession() throws {
        let backend = try Self.backend()
        let holder = try LockHolderProcess(url: Self.url(of: backend), operation: "apply")
        try backend.forceUnlock(id: holder.lockID)
        #expect(try backend.currentLock() == nil)
        let lock = try backend.lock(operation: "apply")
        let refused = try holder.send("write \(StateTests.lineage) 1")
        #expect(refused == "ERROR " + StateError.lockedByAnotherProcess(path: backend.source, holder: lock).description)
        #expect(try holder.send("unlock").hasPrefix("ERROR state \(backend.source) is locked by another process"))
        #expect(try backend.read() == nil)
        try backend.unlock(id: lock.id)
    }

    /// One backend shared by threads, as the engine's tasks may: every write is serialized, and each one that
    /// succeeds raises the stored serial by exactly one.
    @Test func threadsSharingOneBackendNeverLoseAWrite() throws {
        let backend = try Self.backend()
        let lock = try backend.lock(operation: "apply")
        try backend.write(State(lineage: StateTests.lineage, serial: 1, resources: []))
        let written = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            guard let stored = try? backend.read() else { return }
            var next = stored.nextSerial()
            next.record(ResourceState(address: "r\(index)", provider: "kubernetes", cloud: "vk-msk", providerID: "u", attributes: [:]))
            if (try? backend.write(next)) != nil { written.withLock { $0 += 1 } }
        }
        try backend.unlock(id: lock.id)
        let count = written.withLock { $0 }
        #expect(count >= 1)
        #expect(try backend.read()?.serial == 1 + count)
    }

    @Test func aWrongPasswordIsReportedWithoutIt() throws {
        let url = try PostgresTestBed.workspaceURL()
        let wrong = url.replacingOccurrences(of: #"(://[^:@/]+:)[^@]*@"#, with: "$1hunter2-wrong@", options: .regularExpression)
        let backend = try Self.backend(wrong)
        let caught = PostgresTestBed.error { () throws(StateError) in _ = try backend.read() }
        guard case .database(let source, let operation, let message) = caught else {
            Issue.record("expected a database error, got \(String(describing: caught))")
            return
        }
        #expect(operation == "connect" && source == backend.source)
        #expect(message.contains("password authentication failed for user \"mcloud\""))
        #expect(caught?.description.contains("hunter2") == false)
    }
}
