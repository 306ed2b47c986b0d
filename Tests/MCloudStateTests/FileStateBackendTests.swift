import Foundation
import MCloudCore
import MCloudState
import Testing
import MCloudProvider

@Suite struct FileStateBackendTests {
    static let time = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    /// A fresh folder and a backend on `state.json` inside it, as this process with a fixed clock.
    static func backend(host: String = "ci-runner", pid: Int32 = getpid()) throws -> FileStateBackend {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-state-\(UUID().uuidString)").path
        return FileStateBackend(path: folder + "/nested/state.json", identity: identity(host: host, pid: pid))
    }

    static func identity(host: String = "ci-runner", pid: Int32 = getpid(), running: Bool = true) -> ProcessIdentity {
        ProcessIdentity(pid: pid, host: host, user: "anna", now: { time }, isRunning: { _ in running })
    }

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    static func put(_ text: String, at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static func written(_ backend: FileStateBackend) throws -> State {
        try StateBackendContract.written(backend)
    }

    static func contract() throws -> StateBackendContract {
        let backend = try backend()
        return StateBackendContract(backend: backend, name: backend.path, lockName: backend.lockPath, currentLock: backend.currentLock)
    }

    @Test func readingWhereNoStateWasWrittenGivesNil() throws {
        #expect(try Self.backend().read() == nil)
    }

    @Test func aWrittenStateReadsBackEqualAndTheFileHoldsItsExactBytes() throws {
        let backend = try Self.backend()
        let state = try Self.written(backend)
        #expect(try backend.read() == state)
        #expect(Self.contents(backend.path) == Array(state.serialized().utf8))
    }

    /// Larger than the read's chunks and than the parser's size for reading on two cores: read in one piece.
    @Test func aStateOfThousandsOfResourcesReadsBackEqual() throws {
        let backend = try Self.backend()
        let resources = (0..<3_000).map { index in
            ResourceState(
                address: ResourceAddress("kubernetes.vk-msk.v1.ConfigMap.retail-bank-ru.settings-\(index)"), provider: "kubernetes", cloud: "vk-msk",
                providerID: "uid-\(index)", attributes: ["data": .object([("text", .string(String(repeating: "x", count: index % 700)))])]
            )
        }
        let state = State(lineage: StateTests.lineage, serial: 1, resources: resources)
        let lock = try backend.lock(operation: "apply")
        try backend.write(state)
        try backend.unlock(id: lock.id)
        #expect((Self.contents(backend.path)?.count ?? 0) > 1 << 20)
        #expect(try backend.read() == state)
    }

    @Test func eachWriteRaisesTheSerialAndKeepsThePreviousStateAsBackup() throws {
        let backend = try Self.backend()
        let lock = try backend.lock(operation: "apply")
        var state = State()
        for _ in 0..<3 {
            state = state.nextSerial()
            state.record(ResourceState(address: "r\(state.serial)", provider: "kubernetes", cloud: "vk-msk", providerID: "u", attributes: [:]))
            try backend.write(state)
        }
        try backend.unlock(id: lock.id)
        #expect(try backend.read()?.serial == 3)
        #expect(try backend.read()?.resources.count == 3)
        let backup = try State.parse(Self.contents(backend.backupPath) ?? [], source: backend.backupPath)
        #expect(backup.serial == 2)
    }

    @Test func aStateOfAnotherLineageIsRefusedAndTheStoredOneKept() throws {
        try Self.contract().refusesAnotherLineageAndKeepsTheStoredState()
    }

    @Test(arguments: [1, 0])
    func aStateNotNewerThanTheStoredOneIsRefused(serial: Int) throws {
        try Self.contract().refusesAStateNotNewerThanTheStoredOne(serial: serial)
    }

    @Test func aNeverWrittenStateMustBeAdvancedBeforeItsFirstWrite() throws {
        let backend = try Self.backend()
        let lock = try backend.lock(operation: "apply")
        let state = State()
        #expect(throws: StateError.staleSerial(path: backend.path, stored: 0, writing: 0)) { try backend.write(state) }
        try backend.write(state.nextSerial())
        try backend.unlock(id: lock.id)
    }

    static let unreadable: [(state: State, reason: String)] = [
        (State(lineage: "prod", serial: 1, resources: []), "lineage: \"prod\" is not a UUID"),
        (
            State(lineage: StateTests.lineage, serial: 1, resources: [
                ResourceState(address: "a", provider: "kubernetes", cloud: "vk-msk", providerID: "", attributes: [:]),
            ]),
            "resources[0].provider_id: must not be empty"
        ),
    ]

    @Test(arguments: unreadable)
    func aStateThatWouldNotReadBackIsNeverWritten(state: State, reason: String) throws {
        try Self.contract().neverWritesAStateThatWouldNotReadBack(state, reason: reason)
    }

    /// Damaged files as a crash, a bad merge or a hand edit leave them.
    static let damaged: [(name: String, text: String, error: @Sendable (String) -> StateError)] = [
        ("empty", "", { .corrupted(source: $0, reason: "not JSON (invalid JSON at byte 0: unexpected end)") }),
        ("truncated", "{\"format_version\": 1, \"lineage\": \"0b7f", { .corrupted(source: $0, reason: "not JSON (invalid JSON at byte 38: unterminated string)") }),
        ("merge conflict", "<<<<<<< HEAD\n{}", { .corrupted(source: $0, reason: "not JSON (invalid JSON at byte 0: expected a value)") }),
        ("a list", "[]", { .corrupted(source: $0, reason: "the document: expected an object, found an array") }),
        ("no serial", "{\"format_version\": 1, \"lineage\": \"\(StateTests.lineage)\", \"resources\": []}", { .corrupted(source: $0, reason: "serial: missing") }),
        ("newer format", "{\"format_version\": 3, \"state\": {}}", { .newerFormat(source: $0, version: 3) }),
    ]

    @Test(arguments: damaged.indices)
    func aDamagedStateIsRefusedOnReadAndWriteAndLeftByteIdentical(index: Int) throws {
        let (_, text, error) = Self.damaged[index]
        let backend = try Self.backend()
        try Self.put(text, at: backend.path)
        #expect(throws: error(backend.path)) { try backend.read() }
        let lock = try backend.lock(operation: "apply")
        #expect(throws: error(backend.path)) { try backend.write(State().nextSerial()) }
        try backend.unlock(id: lock.id)
        #expect(Self.contents(backend.path) == Array(text.utf8))
        #expect(Self.contents(backend.backupPath) == nil)
    }

    @Test func aTemporaryFileLeftByACrashedWriteDoesNotAffectReadsOrWrites() throws {
        let backend = try Self.backend()
        let stored = try Self.written(backend)
        try Self.put("{\"format_version\": 1, \"lin", at: backend.path + ".tmp-0b7f3c1e")
        #expect(try backend.read() == stored)
        let lock = try backend.lock(operation: "apply")
        try backend.write(stored.nextSerial())
        try backend.unlock(id: lock.id)
        #expect(try backend.read()?.serial == 2)
        // The write left no temporary file of its own.
        let folder = (backend.path as NSString).deletingLastPathComponent
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names == ["state.json", "state.json.backup", "state.json.tmp-0b7f3c1e"])
    }

    @Test func theLockFileSaysWhoHoldsTheLock() throws {
        let backend = try Self.backend()
        let lock = try backend.lock(operation: "apply")
        #expect(lock == LockInfo(id: lock.id, pid: getpid(), host: "ci-runner", operation: "apply", who: "anna", created: Self.time))
        #expect(try backend.currentLock() == lock)
        let text = String(decoding: Self.contents(backend.lockPath) ?? [], as: UTF8.self)
        #expect(text == """
            {
              "id": "\(lock.id)",
              "pid": \(getpid()),
              "host": "ci-runner",
              "operation": "apply",
              "who": "anna",
              "created": "2026-01-01T00:00:00Z"
            }

            """)
    }

    @Test func aSecondLockFailsAtOnceNamingTheHolder() throws {
        let backend = try Self.backend()
        let first = try backend.lock(operation: "apply")
        #expect(throws: StateError.locked(path: backend.path, holder: first, holderIsGone: false)) {
            try backend.lock(operation: "destroy")
        }
        let message = StateError.locked(path: backend.path, holder: first, holderIsGone: false).description
        #expect(message == "state \(backend.path) is locked by `apply` (lock ID \(first.id), pid \(getpid()) on host ci-runner, user anna, since 2026-01-01T00:00:00Z); try again when it finishes")
        try backend.unlock(id: first.id)
        _ = try backend.lock(operation: "destroy")
    }

    @Test func writingWithoutTheLockIsRefused() throws {
        try Self.contract().refusesChangesWithoutTheLock()
    }

    @Test func unlockAndForceUnlockNeedTheHoldersID() throws {
        try Self.contract().unlockingNeedsTheHoldersID()
    }

    /// Another process's backend on the same files: same host, another pid.
    static func otherProcess(of backend: FileStateBackend, pid: Int32, running: Bool) -> FileStateBackend {
        FileStateBackend(path: backend.path, identity: identity(pid: pid, running: running))
    }

    @Test func anotherProcessCannotWriteOrUnlockButCanForceUnlockWithTheID() throws {
        let backend = try Self.backend()
        let lock = try backend.lock(operation: "apply")
        let other = Self.otherProcess(of: backend, pid: 4242, running: true)
        #expect(throws: StateError.lockedByAnotherProcess(path: backend.path, holder: lock)) { try other.write(State().nextSerial()) }
        #expect(throws: StateError.lockedByAnotherProcess(path: backend.path, holder: lock)) { try other.unlock(id: lock.id) }
        try other.forceUnlock(id: lock.id)
        #expect(try backend.currentLock() == nil)
        // The first holder learns that its lock was broken instead of writing over whoever holds it next.
        let taken = try other.lock(operation: "destroy")
        #expect(throws: StateError.lockedByAnotherProcess(path: backend.path, holder: taken)) { try backend.write(State().nextSerial()) }
    }

    /// A lock file as another mcloud writes it, naming a real process that is still running, here or elsewhere.
    @Test(arguments: [true, false])
    func aLockHeldByAnotherLiveProcessFailsNamingItsPidAndHost(onThisHost: Bool) throws {
        let child = try Process.run(URL(fileURLWithPath: "/bin/sleep"), arguments: ["30"])
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) }; child.waitUntilExit() }
        let backend = FileStateBackend(path: try Self.backend().path, identity: .current)
        let host = onThisHost ? ProcessIdentity.current.host : "build-7"
        let holder = LockInfo(id: "7c0d", pid: child.processIdentifier, host: host, operation: "apply", who: "ci", created: Self.time)
        try Self.put(Self.lockText(holder), at: backend.lockPath)
        let error = StateError.locked(path: backend.path, holder: holder, holderIsGone: false)
        #expect(throws: error) { try backend.lock(operation: "plan") }
        #expect(error.description.contains("`apply` (lock ID 7c0d, pid \(child.processIdentifier) on host \(host), user ci, since 2026-01-01T00:00:00Z)"))
    }

    @Test func aLockOfADeadProcessOnThisHostIsReportedAsStaleNotBroken() throws {
        let child = try Process.run(URL(fileURLWithPath: "/bin/true"), arguments: [])
        child.waitUntilExit()
        let backend = FileStateBackend(path: try Self.backend().path, identity: .current)
        let holder = LockInfo(
            id: "7c0d", pid: child.processIdentifier, host: ProcessIdentity.current.host, operation: "apply", who: "ci", created: Self.time
        )
        let text = Self.lockText(holder)
        try Self.put(text, at: backend.lockPath)
        let error = StateError.locked(path: backend.path, holder: holder, holderIsGone: true)
        #expect(throws: error) { try backend.lock(operation: "apply") }
        #expect(error.description.hasSuffix(
            "; that process no longer runs on this host, so the lock is probably stale: if no mcloud uses this state, run `mcloud state force-unlock 7c0d`"
        ))
        #expect(Self.contents(backend.lockPath) == Array(text.utf8))
        try backend.forceUnlock(id: "7c0d")
        _ = try backend.lock(operation: "apply")
    }

    /// A dead pid on another host says nothing: that host's processes cannot be seen from here.
    @Test func aLockFromAnotherHostIsNeverCalledStale() throws {
        let backend = try Self.backend()
        let holder = LockInfo(id: "7c0d", pid: 4242, host: "build-7", operation: "apply", who: "ci", created: Self.time)
        try Self.put(Self.lockText(holder), at: backend.lockPath)
        let dead = Self.otherProcess(of: backend, pid: getpid(), running: false)
        #expect(throws: StateError.locked(path: backend.path, holder: holder, holderIsGone: false)) { try dead.lock(operation: "plan") }
    }

    static let unreadableLocks: [(text: String, reason: String)] = [
        ("", "it is empty"),
        ("pid 4242", "not JSON (invalid JSON at byte 0: expected a value)"),
        ("{\"id\": \"x\", \"pid\": 0, \"host\": \"h\", \"operation\": \"apply\", \"who\": \"ci\", \"created\": \"2026-01-01T00:00:00Z\"}", "pid: 0 is not a process ID"),
        ("{\"id\": \"x\", \"pid\": 1, \"host\": \"h\", \"operation\": \"apply\", \"who\": \"ci\", \"created\": \"yesterday\"}", "created: \"yesterday\" is not an ISO 8601 time"),
        ("{\"id\": \"x\", \"pid\": 1, \"operation\": \"apply\", \"who\": \"ci\", \"created\": \"2026-01-01T00:00:00Z\"}", "host: missing"),
    ]

    @Test(arguments: unreadableLocks)
    func anUnreadableLockFileIsReportedAndLeftAlone(text: String, reason: String) throws {
        let backend = try Self.backend()
        try Self.put(text, at: backend.lockPath)
        #expect(throws: StateError.lockUnreadable(path: backend.lockPath, reason: reason)) { try backend.lock(operation: "apply") }
        #expect(Self.contents(backend.lockPath) == Array(text.utf8))
    }

    static func lockText(_ info: LockInfo) -> String {
        let created = info.created.formatted(Date.ISO8601FormatStyle())
        return """
            {"id": "\(info.id)", "pid": \(info.pid), "host": "\(info.host)", "operation": "\(info.operation)", "who": "\(info.who)", "created": "\(created)"}
            """
    }
}
