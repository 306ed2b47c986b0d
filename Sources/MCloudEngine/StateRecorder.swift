public import MCloudProvider

/// The one writer of the state during an apply. A change counts as done only once a write that includes it is
/// stored, so the state on disk always lists what exists. Changes that finish while a write is under way share the
/// next write (a group commit): a large apply is not held to one full state write per resource.
public actor StateRecorder {
    /// Everything recorded so far, written or about to be.
    public private(set) var state: State
    private let backend: any StateBackend
    /// Each recording bumps it; a write covers every recording made before it started.
    private var recorded = 0
    private var writing = false
    private var waiting: [(upTo: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    /// How many writes reached the backend: fewer than recordings when changes finish together.
    public private(set) var writes = 0

    /// `state` is what the backend holds now (a new one when it holds none); the caller holds the lock.
    public init(state: State, backend: any StateBackend) {
        self.state = state
        self.backend = backend
    }

    public func record(_ resource: ResourceState) async throws(StateError) {
        state.record(resource)
        try await persist()
    }

    public func forget(_ address: ResourceAddress) async throws(StateError) {
        guard state.remove(address: address) != nil else { return }
        try await persist()
    }

    /// Records clouds as lost (a failover's), beside those recorded already.
    public func record(lost clouds: [String]) async throws(StateError) {
        let merged = Set(state.lost).union(clouds).sorted()
        guard merged != state.lost else { return }
        state.lost = merged
        try await persist()
    }

    /// Lost clouds that are back: no longer lost.
    public func record(recovered clouds: [String]) async throws(StateError) {
        let remaining = state.lost.filter { !clouds.contains($0) }
        guard remaining != state.lost else { return }
        state.lost = remaining
        try await persist()
    }

    /// Records resources as retained (a failover's restore sources), beside those retained already.
    public func record(retained addresses: [ResourceAddress]) async throws(StateError) {
        let merged = Set(state.retained).union(addresses).sorted()
        guard merged != state.retained else { return }
        state.retained = merged
        try await persist()
    }

    /// Records `current` as the primary of the cell whose first primary is `first` (a switchover's); the first primary
    /// itself drops the entry.
    public func record(primary current: ResourceAddress, of first: ResourceAddress) async throws(StateError) {
        let next: ResourceAddress? = current == first ? nil : current
        guard state.primaries[first] != next else { return }
        state.primaries[first] = next
        try await persist()
    }

    /// Drops what the state records in `clouds` without touching those clouds (`--forget-lost`); what was dropped.
    public func forgetResources(in clouds: Set<String>) async throws(StateError) -> [ResourceAddress] {
        let gone = state.resources.filter { clouds.contains($0.cloud) }.map(\.address)
        guard !gone.isEmpty else { return [] }
        for address in gone { state.remove(address: address) }
        try await persist()
        return gone
    }

    /// Records where the application now runs and what it costs (nil after a destroy), once an apply is complete.
    public func record(placement: AppliedPlacement?) async throws(StateError) {
        guard state.placement != placement else { return }
        state.placement = placement
        try await persist()
    }

    /// Returns once a write that includes the latest recording is stored.
    private func persist() async throws(StateError) {
        recorded += 1
        let mine = recorded
        do {
            try await withCheckedThrowingContinuation { continuation in
                waiting.append((upTo: mine, continuation: continuation))
                if !writing { startWrite() }
            }
        } catch let error as StateError {
            throw error
        } catch {
            throw .system(operation: "write the state", path: "\(error)", errno: 0)
        }
    }

    /// Writes everything recorded so far off the actor, so recordings keep arriving meanwhile; then wakes those it
    /// covered and starts the next write for the rest.
    private func startWrite() {
        writing = true
        // The state in memory carries the serial of the write under way, so the next write's is higher.
        state = state.nextSerial()
        let snapshot = state
        let covers = recorded
        let backend = backend
        Task.detached {
            let result = Result { () throws(StateError) in try backend.write(snapshot) }
            await self.finishWrite(covers: covers, result: result)
        }
    }

    private func finishWrite(covers: Int, result: Result<Void, StateError>) {
        writing = false
        let done = waiting.filter { $0.upTo <= covers }
        waiting.removeAll { $0.upTo <= covers }
        switch result {
        case .success:
            writes += 1
            for waiter in done { waiter.continuation.resume() }
        case .failure(let error):
            for waiter in done { waiter.continuation.resume(throwing: error) }
        }
        if !waiting.isEmpty { startWrite() }
    }
}
