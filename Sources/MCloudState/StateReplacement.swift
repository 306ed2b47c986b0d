import MCloudProvider

/// The checks every backend makes before a write replaces the stored state, so all backends refuse the same
/// writes with the same errors: the stored state must read (a damaged or newer-format one is never overwritten),
/// be of the same lineage and have a lower serial, and the new state must read back.
struct StateReplacement {
    /// The stored state, nil when none was written yet.
    let stored: State?
    /// The serialized new state, to be stored as it is.
    let bytes: [UInt8]

    /// `storedBytes` is what the backend holds now; `source` names it in errors.
    init(of storedBytes: [UInt8]?, by state: State, source: String) throws(StateError) {
        let stored = try storedBytes.map { (bytes) throws(StateError) in try State.parse(bytes, source: source) }
        if let stored, stored.lineage != state.lineage {
            throw .lineageMismatch(path: source, stored: stored.lineage, writing: state.lineage)
        }
        let storedSerial = stored?.serial ?? 0
        guard state.serial > storedSerial else { throw .staleSerial(path: source, stored: storedSerial, writing: state.serial) }
        let bytes = Array(state.serialized().utf8)
        // A state built with a bad lineage or an empty field would be stored fine and then never read again.
        do throws(StateError) {
            _ = try State.parse(bytes, source: source)
        } catch {
            guard case .corrupted(_, let reason) = error else { throw error }
            throw .unreadableResult(path: source, reason: reason)
        }
        self.stored = stored
        self.bytes = bytes
    }
}
