public import MCloudProvider
import Foundation
import MCloudCore

/// The state in a local JSON file (default `.mcloud/state.json`), with the previous version kept as
/// `state.json.backup` and the lock as `state.json.lock` next to it. See docs/state.md.
public struct FileStateBackend: StateBackend {
    public static let defaultPath = ".mcloud/state.json"

    public let path: String
    public var lockPath: String { path + ".lock" }
    public var backupPath: String { path + ".backup" }
    let identity: ProcessIdentity

    public init(path: String = defaultPath, identity: ProcessIdentity = .current) {
        self.path = path
        self.identity = identity
    }

    public func read() throws(StateError) -> State? {
        guard let bytes = try POSIXFile.read(path) else { return nil }
        return try State.parse(bytes, source: path)
    }

    /// Checks the stored state before replacing it, so a corrupted or newer-format file is never overwritten and a
    /// foreign or stale state never replaces it; the stored bytes become the backup.
    public func write(_ state: State) throws(StateError) {
        try requireOwnLock()
        let storedBytes = try POSIXFile.read(path)
        let replacement = try StateReplacement(of: storedBytes, by: state, source: path)
        if let storedBytes { try POSIXFile.replace(backupPath, with: storedBytes) }
        try POSIXFile.replace(path, with: replacement.bytes)
    }

    public func lock(operation: String) throws(StateError) -> LockInfo {
        try POSIXFile.createFolder(POSIXFile.folder(of: path))
        let mine = LockInfo(operation: operation, identity: identity)
        let contents = mine.json.serializedBytes() + [UInt8(ascii: "\n")]
        // Twice: the holder may release the lock between our attempt and our reading of it.
        for _ in 0..<2 {
            if try POSIXFile.createExclusively(lockPath, with: contents) { return mine }
            if let holder = try currentLock() {
                // A dead holder is reported, never broken here: pid and host in a file are not proof enough to take
                // over a state another mcloud may be writing (a reused pid, a shared folder on another host).
                let gone = holder.host == identity.host && !identity.isRunning(holder.pid)
                throw .locked(path: path, holder: holder, holderIsGone: gone)
            }
        }
        throw .lockUnreadable(path: lockPath, reason: "it keeps appearing and disappearing")
    }

    public func unlock(id: String) throws(StateError) {
        let holder = try requireOwnLock()
        guard holder.id == id else { throw .lockIDMismatch(path: lockPath, given: id, holder: holder) }
        try POSIXFile.remove(lockPath)
    }

    public func forceUnlock(id: String) throws(StateError) {
        guard let holder = try currentLock() else { throw .notLocked(path: path) }
        guard holder.id == id else { throw .lockIDMismatch(path: lockPath, given: id, holder: holder) }
        try POSIXFile.remove(lockPath)
    }

    /// Who holds the lock now, or nil when nobody does.
    public func currentLock() throws(StateError) -> LockInfo? {
        guard let bytes = try POSIXFile.read(lockPath) else { return nil }
        do throws(FieldReader.Failure) {
            return try LockInfo.parse(bytes)
        } catch {
            throw .lockUnreadable(path: lockPath, reason: bytes.isEmpty ? "it is empty" : error.message)
        }
    }

    /// The lock, when this process holds it; anything else is an error.
    @discardableResult
    private func requireOwnLock() throws(StateError) -> LockInfo {
        guard let holder = try currentLock() else { throw .notLocked(path: path) }
        guard holder.pid == identity.pid, holder.host == identity.host else { throw .lockedByAnotherProcess(path: path, holder: holder) }
        return holder
    }
}
