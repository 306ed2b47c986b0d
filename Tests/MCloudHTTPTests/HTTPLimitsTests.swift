import Foundation
import MCloudHTTP
import Testing

/// Answers that would hold a request forever or fill memory, from a real server on loopback
/// (Fixtures/http_test_server.py): each ends in an error naming the limit it hit.
@Suite(.serialized) struct HTTPLimitsTests {
    static func limits(total: Double = 30, stall: Double = 30, megabytes: Int = 256) -> HTTPTimeouts {
        HTTPTimeouts(connect: 2, total: total, stall: stall, maxResponseBytes: megabytes << 20)
    }

    /// The error a request ends with, and how long it took to end.
    static func failure(_ transport: any HTTPTransport, _ url: String) async -> (error: HTTPError?, seconds: Double) {
        let started = ContinuousClock.now
        do throws(HTTPError) {
            _ = try await transport.send(HTTPRequest(method: .GET, url: url))
            return (nil, (ContinuousClock.now - started) / .seconds(1))
        } catch {
            return (error, (ContinuousClock.now - started) / .seconds(1))
        }
    }

    @Test func aContentLengthOfTwoGiBIsRefusedBeforeTheBodyIsRead() async throws {
        let server = try TestServer()
        let url = "http://127.0.0.1:\(server.port)/huge"
        let outcome = await Self.failure(CurlTransport(timeouts: Self.limits()), url)
        // Refused from the header: had it read the stalled body, the stall limit would have ended it instead.
        #expect(outcome.error == .tooLarge(url: url, limit: 256 << 20))
        #expect(outcome.error?.description == "the answer from \(url) is larger than 256 MiB (MCLOUD_HTTP_MAX_RESPONSE_MB)")
    }

    @Test func aChunkedBodyThatNeverEndsIsCutAtTheSizeLimit() async throws {
        let server = try TestServer()
        let url = "http://127.0.0.1:\(server.port)/endless"
        let outcome = await Self.failure(CurlTransport(timeouts: Self.limits(megabytes: 1)), url)
        #expect(outcome.error == .tooLarge(url: url, limit: 1 << 20))
    }

    @Test func aBodyThatStallsIsGivenUpAfterTheStallLimit() async throws {
        let server = try TestServer()
        let url = "http://127.0.0.1:\(server.port)/stall/once/10"
        let outcome = await Self.failure(CurlTransport(timeouts: Self.limits(total: 60, stall: 1)), url)
        #expect(outcome.error == .stalled(url: url, seconds: 1))
        #expect(outcome.seconds < 30, "\(outcome.seconds) s")
        #expect(outcome.error?.description.contains("MCLOUD_HTTP_STALL_TIMEOUT") == true)
    }

    /// A byte every half second never trips the stall limit; the request's total limit ends it.
    @Test func aTrickleThatNeverEndsIsCutAtTheTotalLimit() async throws {
        let server = try TestServer()
        let url = "http://127.0.0.1:\(server.port)/trickle/0.5"
        let outcome = await Self.failure(CurlTransport(timeouts: Self.limits(total: 2, stall: 1)), url)
        #expect(outcome.error == .timeout(url: url, seconds: 2))
        #expect(outcome.error?.description.contains("MCLOUD_HTTP_TIMEOUT") == true)
    }

    /// Each stalled attempt is retried, but the request as a whole ends at its deadline, reported as the deadline.
    @Test func retriesOfAStallingServerEndAtTheRequestsDeadline() async throws {
        let server = try TestServer()
        let url = "http://127.0.0.1:\(server.port)/stall/retried/1"
        let limits = HTTPLimits(timeouts: Self.limits(total: 10, stall: 1), retry: RetryPolicy(maxAttempts: 40, baseDelay: 0.05, maxDelay: 0.1, budget: 60))
        let transport = RetryingTransport(CurlTransport(timeouts: limits.timeouts), policy: limits.retry)
        let outcome = await Self.failure(transport, url)
        guard case .timeout(url, 10, let last)? = outcome.error else {
            Issue.record("ended with \(String(describing: outcome.error)), not the request's deadline")
            return
        }
        #expect(last?.contains("stalled") == true, "the last attempt's failure is named: \(String(describing: last))")
        #expect(outcome.seconds < 40, "the deadline did not hold: \(outcome.seconds) s")
        let attempts = try await CurlTransport().send(HTTPRequest(method: .GET, url: "http://127.0.0.1:\(server.port)/count/retried")).text
        #expect((Int(attempts) ?? 0) >= 2, "a stall is worth another attempt while time is left: \(attempts)")
    }

    struct Setting: CustomTestStringConvertible, Sendable {
        var environment: [String: String]
        var expected: HTTPTimeouts?
        var error: String?
        var testDescription: String { environment.isEmpty ? "defaults" : environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ") }
    }

    static let settings: [Setting] = [
        Setting(environment: [:], expected: HTTPTimeouts(connect: 10, total: 120, stall: 30, maxResponseBytes: 256 << 20)),
        Setting(
            environment: ["MCLOUD_HTTP_TIMEOUT": "20", "MCLOUD_HTTP_CONNECT_TIMEOUT": "2.5", "MCLOUD_HTTP_STALL_TIMEOUT": "4.2", "MCLOUD_HTTP_MAX_RESPONSE_MB": "16"],
            expected: HTTPTimeouts(connect: 2.5, total: 20, stall: 5, maxResponseBytes: 16 << 20)
        ),
        Setting(environment: ["MCLOUD_HTTP_TIMEOUT": "soon"], error: #"MCLOUD_HTTP_TIMEOUT must be a number of at least 0.1, not "soon""#),
        Setting(environment: ["MCLOUD_HTTP_STALL_TIMEOUT": "0"], error: #"MCLOUD_HTTP_STALL_TIMEOUT must be a number of at least 1, not "0""#),
        Setting(environment: ["MCLOUD_HTTP_MAX_RESPONSE_MB": "-1"], error: #"MCLOUD_HTTP_MAX_RESPONSE_MB must be a number of at least 1, not "-1""#),
        Setting(environment: ["MCLOUD_HTTP_CONNECT_TIMEOUT": "inf"], error: #"MCLOUD_HTTP_CONNECT_TIMEOUT must be a number of at least 0.1, not "inf""#),
    ]

    @Test(arguments: settings)
    func limitsComeFromTheEnvironment(_ setting: Setting) throws {
        do throws(HTTPLimits.Invalid) {
            let limits = try HTTPLimits(environment: setting.environment)
            #expect(limits.timeouts == setting.expected)
            #expect(limits.retry.deadline == limits.timeouts.total, "the retries keep to the same total limit")
            #expect(setting.error == nil)
        } catch {
            #expect(error.message == setting.error)
        }
    }
}
