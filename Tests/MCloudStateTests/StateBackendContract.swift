import MCloudProvider
import MCloudState
import Testing

/// What every `StateBackend` does alike, run by each backend's suite on a fresh backend: the same refusals with
/// the same errors, naming the state as that backend does (`name`; `lockName` for the lock, which the file
/// backend keeps in a file of its own).
struct StateBackendContract {
    let backend: any StateBackend
    let name: String
    let lockName: String
    let currentLock: () throws -> LockInfo?

    /// Writes one state under the lock and releases it.
    static func written(_ backend: any StateBackend, serial: Int = 1) throws -> State {
        let state = State(lineage: StateTests.lineage, serial: serial, resources: [StateTests.deployment])
        let lock = try backend.lock(operation: "apply")
        try backend.write(state)
        try backend.unlock(id: lock.id)
        return state
    }

    func refusesAnotherLineageAndKeepsTheStoredState() throws {
        let stored = try Self.written(backend)
        let lock = try backend.lock(operation: "apply")
        let foreign = State().nextSerial().nextSerial()
        #expect(throws: StateError.lineageMismatch(path: name, stored: stored.lineage, writing: foreign.lineage)) { try backend.write(foreign) }
        try backend.unlock(id: lock.id)
        #expect(try backend.read() == stored)
    }

    func refusesAStateNotNewerThanTheStoredOne(serial: Int) throws {
        let stored = try Self.written(backend)
        let lock = try backend.lock(operation: "apply")
        var stale = State(lineage: stored.lineage, serial: serial, resources: [])
        stale.record(StateTests.namespace)
        #expect(throws: StateError.staleSerial(path: name, stored: 1, writing: serial)) { try backend.write(stale) }
        try backend.unlock(id: lock.id)
        #expect(try backend.read() == stored)
    }

    func neverWritesAStateThatWouldNotReadBack(_ state: State, reason: String) throws {
        let lock = try backend.lock(operation: "apply")
        #expect(throws: StateError.unreadableResult(path: name, reason: reason)) { try backend.write(state) }
        try backend.unlock(id: lock.id)
        #expect(try backend.read() == nil)
    }

    func refusesChangesWithoutTheLock() throws {
        #expect(throws: StateError.notLocked(path: name)) { try backend.write(State().nextSerial()) }
        #expect(throws: StateError.notLocked(path: name)) { try backend.unlock(id: "x") }
        #expect(throws: StateError.notLocked(path: name)) { try backend.forceUnlock(id: "x") }
        #expect(try backend.read() == nil)
    }

    func unlockingNeedsTheHoldersID() throws {
        let lock = try backend.lock(operation: "apply")
        #expect(throws: StateError.lockIDMismatch(path: lockName, given: "wrong", holder: lock)) { try backend.unlock(id: "wrong") }
        #expect(throws: StateError.lockIDMismatch(path: lockName, given: "wrong", holder: lock)) { try backend.forceUnlock(id: "wrong") }
        #expect(try currentLock() == lock)
        try backend.unlock(id: lock.id)
        #expect(try currentLock() == nil)
    }
}
