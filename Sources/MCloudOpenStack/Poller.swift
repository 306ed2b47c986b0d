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

extension Poller {
    /// What a create left without a complete answer makes, once `find` sees it: the service may still be working on
    /// the request, so it is watched for (this poller's delays, `settle` seconds) instead of sent again. A look that
    /// gets no answer or a 5xx is another look later: the service that left the create unanswered is slow to list too.
    /// Nothing seen in time: the create's `failure`, saying that `missing` did not appear and what happens `later`.
    public func awaitUnanswered<T: Sendable>(
        after failure: OpenStackError, missing: String, later: String, settle: Double,
        find: @Sendable () async throws(OpenStackError) -> T?
    ) async throws(OpenStackError) -> T {
        let watch = Poller(initialDelay: initialDelay, maxDelay: maxDelay, timeout: settle, sleeper: sleeper)
        do throws(OpenStackError) {
            return try await watch.poll("\(missing) to appear") { () async throws(OpenStackError) -> T? in
                do throws(OpenStackError) {
                    return try await find()
                } catch where error.isUncertain {
                    return nil
                }
            }
        } catch {
            guard case .timeout = error else { throw error }
            throw .resourceFailed("\(failure); no \(missing) appeared within \(Int(settle)) s, so the create is not sent again (\(later))")
        }
    }
}
