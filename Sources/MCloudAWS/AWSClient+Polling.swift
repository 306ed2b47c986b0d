public import MCloudCore
import MCloudHTTP

extension Backoff {
    /// AWS's waits: a state that has not changed after a second usually takes minutes, so the looks thin out fast.
    public static let aws = Backoff(initial: 1, factor: 2, cap: 15)
}

extension AWSClient {
    /// A wait of `timeout` seconds by `Backoff.aws` on this client's clock.
    public func poller(timeout: Double) -> Poller {
        Poller(backoff: .aws, timeout: timeout, clock: clock)
    }
}

extension Poller {
    /// Waits until `done` says so; `what` names the wait in the timeout error.
    public func until(
        isolation: isolated (any Actor)? = #isolation, _ what: String, _ done: () async throws(AWSError) -> Bool
    ) async throws(AWSError) {
        try await until(isolation: isolation, done) { stop in
            switch stop {
            case .timedOut(let seconds, _): return .timeout("\(what) not reached within \(Int(seconds)) s")
            case .cancelled: return .transport(operation: what, .cancelled)
            }
        }
    }
}
