import Foundation
import MCloudHTTP
import MCloudTestSupport
import Synchronization
import Testing

/// Against a real HTTP server on loopback (Fixtures/http_test_server.py).
@Suite(.serialized) struct CurlTransportTests {
    final class Lines: HTTPLogger {
        let lines = Mutex<[String]>([])
        func debug(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    final class RecordingSleeper: Sleeper {
        let waits = Mutex<[Double]>([])
        func sleep(seconds: Double) async throws(HTTPError) { waits.withLock { $0.append(seconds) } }
    }

    static func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func sendsMethodHeadersAndBodyAndReadsTheAnswer() async throws {
        let server = try TestServer()
        let transport = CurlTransport()
        let request = HTTPRequest(
            method: .PATCH, url: "http://127.0.0.1:\(server.port)/echo?fieldManager=mcloud",
            headers: [("Content-Type", "application/apply-patch+yaml")], body: Array("kind: Namespace\n".utf8)
        )
        let response = try await transport.send(request)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        let echo = try Self.json(response)
        #expect(echo["method"] as? String == "PATCH")
        #expect(echo["path"] as? String == "/echo?fieldManager=mcloud")
        #expect(echo["body"] as? String == "kind: Namespace\n")
        #expect((echo["headers"] as? [String: String])?["content-type"] == "application/apply-patch+yaml")
    }

    @Test func throttledIdempotentRequestsAreRetriedAfterTheServersDelay() async throws {
        let server = try TestServer()
        let sleeper = RecordingSleeper()
        let transport = RetryingTransport(CurlTransport(), sleeper: sleeper, jitter: { 1 })
        let response = try await transport.send(HTTPRequest(method: .GET, url: "http://127.0.0.1:\(server.port)/flaky/a/2/429"))
        #expect(response.status == 200)
        #expect(response.text == "ok after 3")
        #expect(sleeper.waits.withLock { $0 } == [0, 0])
    }

    @Test(arguments: [502, 503, 504])
    func gatewayErrorsAreRetriedWithBackoff(_ status: Int) async throws {
        let server = try TestServer()
        let sleeper = RecordingSleeper()
        let transport = RetryingTransport(CurlTransport(), policy: RetryPolicy(maxAttempts: 4, baseDelay: 0.5), sleeper: sleeper, jitter: { 1 })
        let response = try await transport.send(HTTPRequest(method: .DELETE, url: "http://127.0.0.1:\(server.port)/flaky/g\(status)/1/\(status)"))
        #expect(response.status == 200)
        #expect(sleeper.waits.withLock { $0 } == [0])  // the server's Retry-After: 0 wins over backoff
    }

    @Test func aPostIsNotRetriedUnlessTheCallerSaysItIsIdempotent() async throws {
        let server = try TestServer()
        let transport = RetryingTransport(CurlTransport(), sleeper: RecordingSleeper())
        let plain = try await transport.send(HTTPRequest(method: .POST, url: "http://127.0.0.1:\(server.port)/flaky/p/1/503", body: []))
        #expect(plain.status == 503)
        let apply = try await transport.send(HTTPRequest(method: .PATCH, url: "http://127.0.0.1:\(server.port)/flaky/q/1/503", body: [], retryable: true))
        #expect(apply.status == 200)
    }

    @Test func anUnreachableServerFailsClearlyAfterTheRetryBudget() async throws {
        let sleeper = RecordingSleeper()
        let transport = RetryingTransport(
            CurlTransport(timeouts: HTTPTimeouts(connect: 1, total: 2)), policy: RetryPolicy(maxAttempts: 3, baseDelay: 0.1),
            sleeper: sleeper, jitter: { 1 }
        )
        await #expect {
            _ = try await transport.send(HTTPRequest(method: .GET, url: "http://127.0.0.1:9/api?token=secret-value"))
        } throws: { error in
            guard case .retriesExhausted(let attempts, let last) = error as? HTTPError else { return false }
            return attempts == 3 && last.contains("127.0.0.1:9") && !last.contains("secret-value")
        }
        #expect(sleeper.waits.withLock { $0 } == [0.1, 0.2])
    }

    @Test func aSlowServerTimesOut() async throws {
        let server = try TestServer()
        let transport = CurlTransport(timeouts: HTTPTimeouts(connect: 1, total: 0.5))
        await #expect(throws: HTTPError.timeout(url: "http://127.0.0.1:\(server.port)/slow/3", seconds: 0.5)) {
            _ = try await transport.send(HTTPRequest(method: .GET, url: "http://127.0.0.1:\(server.port)/slow/3"))
        }
    }

    @Test func tlsTrustsACertificateAuthorityGivenInMemory() async throws {
        let pki = try TestPKI()
        let server = try TestServer(arguments: ["--tls", pki.path("server.pem"), pki.path("server.key")])
        let url = "https://127.0.0.1:\(server.port)/echo"
        // Under the whole suite's load the server may not answer for longer than libcurl's default 30-second stall.
        let patient = HTTPTimeouts(connect: BedTiming.requestDeadline, total: BedTiming.requestDeadline, stall: BedTiming.requestDeadline)
        let trusted = CurlTransport(tls: TLSConfiguration(certificateAuthorityPEM: try pki.bytes("ca.pem")), timeouts: patient)
        #expect(try await trusted.send(HTTPRequest(method: .GET, url: url)).status == 200)
        await #expect {
            _ = try await CurlTransport(timeouts: patient).send(HTTPRequest(method: .GET, url: url))
        } throws: { error in
            if case .tls = error as? HTTPError { return true }
            return false
        }
        let insecure = CurlTransport(tls: TLSConfiguration(insecureSkipVerify: true), timeouts: patient)
        #expect(try await insecure.send(HTTPRequest(method: .GET, url: url)).status == 200)
    }

    @Test func aClientCertificateFromMemoryIdentifiesTheCaller() async throws {
        let pki = try TestPKI()
        let server = try TestServer(arguments: ["--tls", pki.path("server.pem"), pki.path("server.key"), "--client-ca", pki.path("ca.pem")])
        let transport = CurlTransport(tls: TLSConfiguration(
            certificateAuthorityPEM: try pki.bytes("ca.pem"), clientCertificatePEM: try pki.bytes("client.pem"), clientKeyPEM: try pki.bytes("client.key")
        ))
        let response = try await transport.send(HTTPRequest(method: .GET, url: "https://127.0.0.1:\(server.port)/echo"))
        #expect(try Self.json(response)["clientCN"] as? String == "mcloud-client")
    }

    @Test func logsNumberEveryRequestAndNeverShowCredentials() async throws {
        let server = try TestServer()
        let lines = Lines()
        let transport = CurlTransport(logger: lines)
        _ = try await transport.send(HTTPRequest(
            method: .GET, url: "http://127.0.0.1:\(server.port)/echo?token=abc123",
            headers: [("Authorization", "Bearer very-secret"), ("Accept", "application/json")]
        ))
        let log = lines.all.joined(separator: "\n")
        #expect(log.contains("http #"))
        #expect(log.contains("Authorization=[REDACTED]"))
        #expect(log.contains("token=[REDACTED]"))
        #expect(!log.contains("very-secret") && !log.contains("abc123"))
    }

    @Test func manyConcurrentRequestsShareThePool() async throws {
        let server = try TestServer()
        let transport = CurlTransport()
        let url = "http://127.0.0.1:\(server.port)/status/204"
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<40 {
                group.addTask { try await transport.send(HTTPRequest(method: .GET, url: url)).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 204, count: 40))
    }
}

@Suite struct RedactionTests {
    @Test(arguments: [
        ("https://api.example/v1?token=abc&x=1", "https://api.example/v1?token=[REDACTED]&x=1"),
        ("https://user:pass@host/path", "https://[REDACTED]@host/path"),
        ("https://s3.example/b/k?X-Amz-Signature=ff&X-Amz-Date=1", "https://s3.example/b/k?X-Amz-Signature=[REDACTED]&X-Amz-Date=1"),
        ("https://host/plain", "https://host/plain"),
    ])
    func urlsLoseTheirSecrets(_ url: String, _ redacted: String) {
        #expect(Redaction.url(url) == redacted)
    }

    @Test func retryAfterReadsSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 1_000_000_000)
        #expect(RetryAfter.seconds("7", now: now) == 7)
        #expect(RetryAfter.seconds("Sun, 09 Sep 2001 01:46:50 GMT", now: now) == 10)
        #expect(RetryAfter.seconds("soon", now: now) == nil)
    }
}
