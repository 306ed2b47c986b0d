/// Where the state lives. A backend serializes writers two ways: the lock keeps a second operation out while one
/// runs, and `write` refuses a state of another lineage or one not newer than the stored state, so a writer that
/// read an old state cannot silently overwrite a newer one.
public protocol StateBackend: Sendable {
    /// The stored state, or nil when none was written yet. A corrupted or newer-format state is an error.
    func read() throws(StateError) -> State?
    /// Stores `state`; the caller holds the lock, and `state.serial` is above the stored serial.
    func write(_ state: State) throws(StateError)
    /// Takes the lock for `operation` (such as `apply`), or fails at once naming the holder.
    func lock(operation: String) throws(StateError) -> LockInfo
    /// Releases a lock this process holds.
    func unlock(id: String) throws(StateError)
    /// Releases a lock whoever holds it, when `id` names it: `mcloud state force-unlock ID`.
    func forceUnlock(id: String) throws(StateError)
}
