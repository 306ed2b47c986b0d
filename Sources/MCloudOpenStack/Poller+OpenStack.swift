public import MCloudCore
import MCloudHTTP

extension Backoff {
    /// OpenStack's waits: services answer a status read cheaply, so the first look again is soon, then less often.
    public static let openStack = Backoff(initial: 0.5, factor: 1.5, cap: 5)
}

extension Poller {
    /// A wait for an OpenStack service by `Backoff.openStack`.
    public static func openStack(timeout: Double = 300, clock: any WallClock = SystemClock()) -> Poller {
        Poller(backoff: .openStack, timeout: timeout, clock: clock)
    }

    /// Calls `check` until it returns a value; `what` names the wait in the timeout error.
    public func poll<T>(
        isolation: isolated (any Actor)? = #isolation, _ what: String, _ check: () async throws(OpenStackError) -> T?
    ) async throws(OpenStackError) -> T {
        try await poll(isolation: isolation, check) { stop in
            switch stop {
            case .timedOut(let seconds, _): return .timeout("\(what) after \(Int(seconds)) s")
            case .cancelled: return .transport(operation: what, .cancelled)
            }
        }
    }

    /// What a create left without a complete answer makes, once `find` sees it: the service may still be working on
    /// the request, so it is watched for (this poller's backoff, `settle` seconds) instead of sent again. A look that
    /// gets no answer or a 5xx is another look later: the service that left the create unanswered is slow to list too.
    /// Nothing seen in time: the create's `failure`, saying that `missing` did not appear and what happens `later`.
    func watchForUnansweredCreate<T>(
        isolation: isolated (any Actor)? = #isolation, after failure: OpenStackError, missing: String, later: String, settle: Double,
        find: () async throws(OpenStackError) -> T?
    ) async throws(OpenStackError) -> T {
        let watch = Poller(backoff: backoff, timeout: settle, clock: clock)
        do throws(OpenStackError) {
            return try await watch.poll(isolation: isolation, "\(missing) to appear") { () async throws(OpenStackError) -> T? in
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
