public import Foundation

/// How hard to try: exponential backoff with full jitter, capped per wait and in total, all within one deadline.
public struct RetryPolicy: Sendable, Hashable {
    public var maxAttempts: Int
    public var baseDelay: Double
    public var maxDelay: Double
    /// Seconds of waiting allowed across all retries of one request.
    public var budget: Double
    /// Seconds the whole request may take, every attempt and wait included (`MCLOUD_HTTP_TIMEOUT`).
    public var deadline: Double

    public init(maxAttempts: Int = 5, baseDelay: Double = 0.2, maxDelay: Double = 10, budget: Double = 30, deadline: Double = 120) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.budget = budget
        self.deadline = deadline
    }

    public static let none = RetryPolicy(maxAttempts: 1, baseDelay: 0, maxDelay: 0, budget: 0)

    /// When a request started now must be over.
    public func deadline(from start: ContinuousClock.Instant) -> ContinuousClock.Instant {
        start + .milliseconds(Int(deadline * 1000))
    }

    /// Seconds left before `end`.
    public static func secondsLeft(until end: ContinuousClock.Instant) -> Double {
        (end - ContinuousClock.now).inSeconds
    }

    /// Statuses that mean "try again later": throttling and a gateway or server in trouble.
    public static let retryableStatuses: Set<Int> = [429, 502, 503, 504]
}

/// Waits between attempts; tests pass one that records instead of sleeping.
public protocol Sleeper: Sendable {
    func sleep(seconds: Double) async throws(HTTPError)
}

public struct TaskSleeper: Sleeper {
    public init() {}

    public func sleep(seconds: Double) async throws(HTTPError) {
        do {
            try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
        } catch {
            throw .cancelled
        }
    }
}

/// Retries idempotent requests on connection errors, timeouts, 429 and 502/503/504, honouring `Retry-After`.
public struct RetryingTransport: HTTPTransport {
    public let base: any HTTPTransport
    public let policy: RetryPolicy
    let sleeper: any Sleeper
    let jitter: @Sendable () -> Double
    let logger: (any HTTPLogger)?

    public init(
        _ base: any HTTPTransport, policy: RetryPolicy = RetryPolicy(), sleeper: any Sleeper = TaskSleeper(),
        logger: (any HTTPLogger)? = nil, jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.base = base
        self.policy = policy
        self.sleeper = sleeper
        self.logger = logger
        self.jitter = jitter
    }

    /// After the last attempt a throttled or failing response is returned as it is, so the caller can report
    /// the server's own message; a connection that never answered becomes `retriesExhausted`. The whole request,
    /// attempts and waits, ends within the policy's deadline: each attempt gets only what is left of it, and once it
    /// is spent the request fails as a timeout naming the limit.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let end = policy.deadline(from: .now)
        var waited = 0.0
        var attempt = 1
        // Why the attempt before failed: a request the deadline ends names it.
        var failure: String?
        while true {
            let left = RetryPolicy.secondsLeft(until: end)
            guard left > 0 else { throw .timeout(url: request.url, seconds: policy.deadline, last: failure) }
            var bounded = request
            bounded.timeLimit = min(request.timeLimit ?? left, left)
            let delay: Double
            let reason: String
            do throws(HTTPError) {
                let response = try await base.send(bounded)
                guard request.retryable, RetryPolicy.retryableStatuses.contains(response.status) else { return response }
                let asked = response.header("retry-after").flatMap { RetryAfter.seconds($0, now: Date()) }
                delay = asked.map { min($0, policy.maxDelay) } ?? backoff(attempt)
                guard attempt < policy.maxAttempts, waited + delay <= policy.budget, delay < RetryPolicy.secondsLeft(until: end) else { return response }
                reason = "HTTP \(response.status)"
                failure = "HTTP \(response.status)"
            } catch {
                if case .timeout = error, RetryPolicy.secondsLeft(until: end) <= 0.25 { throw .timeout(url: request.url, seconds: policy.deadline, last: failure) }
                guard request.retryable, error.isRetryable else { throw error }
                delay = backoff(attempt)
                guard attempt < policy.maxAttempts, waited + delay <= policy.budget else {
                    throw .retriesExhausted(attempts: attempt, last: error.description)
                }
                // No time is left for another attempt: the deadline ended the request, so it is what the error names.
                guard delay < RetryPolicy.secondsLeft(until: end) else { throw .timeout(url: request.url, seconds: policy.deadline, last: error.description) }
                reason = error.description
                failure = error.description
            }
            logger?.debug("retry \(attempt) of \(request.method.rawValue) \(Redaction.url(request.url)) in \(String(format: "%.2f", delay)) s after \(reason)")
            try await sleeper.sleep(seconds: delay)
            waited += delay
            attempt += 1
        }
    }

    /// Full jitter: a random wait up to the exponential step, so many clients do not retry in lockstep.
    private func backoff(_ attempt: Int) -> Double {
        min(policy.maxDelay, policy.baseDelay * pow(2, Double(attempt - 1))) * jitter()
    }
}

/// `Retry-After` is either seconds or an HTTP date (RFC 9110, 10.2.3).
public enum RetryAfter {
    public static func seconds(_ value: String, now: Date) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

extension Duration {
    /// The duration as a number of seconds.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
