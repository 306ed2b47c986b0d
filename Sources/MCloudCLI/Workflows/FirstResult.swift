import Synchronization

/// The first of several racing answers: whoever offers first is the value, the later offers are dropped. For a read
/// bounded by a timer, where neither side may wait for the other to finish.
final class FirstResult<Value: Sendable>: Sendable {
    private struct Slot {
        var waiting: CheckedContinuation<Value, Never>?
        var value: Value?
    }

    private let slot = Mutex(Slot())

    func offer(_ value: Value) {
        let waiting: CheckedContinuation<Value, Never>? = slot.withLock { slot in
            guard slot.value == nil else { return nil }
            slot.value = value
            defer { slot.waiting = nil }
            return slot.waiting
        }
        waiting?.resume(returning: value)
    }

    /// The first value offered, waiting for it if none has been.
    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready: Value? = slot.withLock { slot in
                if let value = slot.value { return value }
                slot.waiting = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
