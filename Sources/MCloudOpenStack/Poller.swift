import Foundation
public import MCloudHTTP

/// Polls until a check says done, waiting longer each time (capped), within a deadline.
public struct Poller: Sendable {
    public var initialDelay: Double
    public var maxDelay: Double
    public var timeout: Double
    let sleeper: any Sleeper

    public init(initialDelay: Double = 0.5, maxDelay: Double = 5, timeout: Double = 300, sleeper: any Sleeper = TaskSleeper()) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.timeout = timeout
        self.sleeper = sleeper
    }

    /// Calls `check` until it returns a value; `what` names the wait in the timeout error.
    public func poll<T: Sendable>(_ what: String, _ check: @Sendable () async throws(OpenStackError) -> T?) async throws(OpenStackError) -> T {
        let start = Date()
        var delay = initialDelay
        while true {
            if let done = try await check() { return done }
            guard Date().timeIntervalSince(start) + delay <= timeout else {
                throw .timeout("\(what) after \(Int(timeout)) s")
            }
            do {
                try await sleeper.sleep(seconds: delay)
            } catch {
                throw .transport(operation: what, error)
            }
            delay = min(maxDelay, delay * 1.5)
        }
    }
}
