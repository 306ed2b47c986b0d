public import MCloudState

/// The one writer of the state during an apply: resources finish in parallel, and each completed one is written
/// before the next write starts, so the state on disk always lists what exists.
public actor StateRecorder {
    public private(set) var state: State
    private let backend: any StateBackend

    /// `state` is what the backend holds now (a new one when it holds none); the caller holds the lock.
    public init(state: State, backend: any StateBackend) {
        self.state = state
        self.backend = backend
    }

    public func record(_ resource: ResourceState) throws(StateError) {
        var next = state.nextSerial()
        next.record(resource)
        try backend.write(next)
        state = next
    }

    public func forget(_ address: String) throws(StateError) {
        guard state[address] != nil else { return }
        var next = state.nextSerial()
        next.remove(address: address)
        try backend.write(next)
        state = next
    }
}
