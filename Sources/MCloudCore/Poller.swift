/// How long to wait between two looks: `initial` first, then each wait `factor` times the one before, never more
/// than `cap`.
public struct Backoff: Sendable, Hashable {
    public var initial: Double
    public var factor: Double
    public var cap: Double

    public init(initial: Double, factor: Double = 2, cap: Double) {
        self.initial = initial
        self.factor = factor
        self.cap = cap
    }

    /// The same wait every time.
    public static func constant(_ seconds: Double) -> Backoff { Backoff(initial: seconds, factor: 1, cap: seconds) }

    /// The wait after `delay`.
    public func next(after delay: Double) -> Double { min(cap, delay * factor) }
}

/// The one way mcloud waits for something to happen: look, and while it has not happened, wait by `backoff` and look
/// again, until `timeout` seconds have passed on `clock`. The first look is at once; no wait runs past the deadline
/// (the last look is at it at the latest). Generic over the caller's error, so every client keeps its own.
public struct Poller: Sendable {
    public var backoff: Backoff
    /// Seconds from the first look to the last.
    public var timeout: Double
    public var clock: any WallClock

    public init(backoff: Backoff, timeout: Double, clock: any WallClock = SystemClock()) {
        self.backoff = backoff
        self.timeout = timeout
        self.clock = clock
    }

    /// Why a wait ended without its answer.
    public enum Stop: Sendable, Hashable {
        /// `timeout` seconds passed; `looks` looks were made.
        case timedOut(seconds: Double, looks: Int)
        case cancelled
    }

    /// Calls `check` until it returns a value, and returns that. `stopped` turns a time-out or a cancellation into the
    /// caller's error; an error `check` throws ends the wait at once. Runs on the caller's actor, so an actor's
    /// check may read its state.
    public func poll<T, E: Error>(
        isolation: isolated (any Actor)? = #isolation, _ check: () async throws(E) -> T?, stopped: (Stop) -> E
    ) async throws(E) -> T {
        let start = clock.now
        var delay = backoff.initial
        var looks = 0
        while true {
            looks += 1
            if let done = try await check() { return done }
            let left = start + timeout - clock.now
            guard left > 0 else { throw stopped(.timedOut(seconds: timeout, looks: looks)) }
            do throws(CancellationError) {
                try await clock.sleep(seconds: min(delay, left))
            } catch {
                throw stopped(.cancelled)
            }
            delay = backoff.next(after: delay)
        }
    }

    /// Waits until `done` says so.
    public func until<E: Error>(
        isolation: isolated (any Actor)? = #isolation, _ done: () async throws(E) -> Bool, stopped: (Stop) -> E
    ) async throws(E) {
        _ = try await poll(isolation: isolation, { () async throws(E) -> Bool? in try await done() ? true : nil }, stopped: stopped)
    }
}
