import Synchronization

/// Set once to make apply start nothing new: after a failure, or on the first Ctrl-C.
public final class StopSignal: Sendable {
    private let reason = Mutex<String?>(nil)

    public init() {}

    /// Records the first reason; later ones are ignored. Returns true the first time.
    @discardableResult
    public func stop(_ why: String) -> Bool {
        reason.withLock { current in
            guard current == nil else { return false }
            current = why
            return true
        }
    }

    public var stopReason: String? { reason.withLock { $0 } }
}
