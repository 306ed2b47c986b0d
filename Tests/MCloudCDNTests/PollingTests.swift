import MCloudAWS
import MCloudCDN
import MCloudCore
import MCloudHTTP
import Synchronization
import Testing

/// Purges that never finish, on a clock the test moves: nothing here sleeps.
@Suite struct PollingTests {
    /// Answers every request with `answer`'s body and records what was sent.
    final class Answering: HTTPTransport {
        private let answer: @Sendable (HTTPRequest) -> String
        private let requests = Mutex<[HTTPRequest]>([])

        init(_ answer: @escaping @Sendable (HTTPRequest) -> String) {
            self.answer = answer
        }

        var sent: [HTTPRequest] { requests.withLock { $0 } }

        func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
            requests.withLock { $0.append(request) }
            return HTTPResponse(status: 200, headers: [], body: Array(answer(request).utf8))
        }
    }

    static func cloudFront(_ transport: Answering, clock: ManualClock) -> CloudFrontCDN {
        let credentials = AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret")
        return CloudFrontCDN(client: CloudFrontClient(client: AWSClient(configuration: AWSConfiguration(credentials: credentials, region: "us-east-1"), transport: transport, clock: clock)))
    }

    @Test func aCloudFrontInvalidationThatNeverCompletesTimesOutAfterItsTimeoutOnTheInjectedClock() async {
        let clock = ManualClock(now: 1_800_000_000)
        let transport = Answering { _ in "<Invalidation><Id>I1</Id><Status>InProgress</Status></Invalidation>" }
        let purge = CDNPurge(resourceID: "E1", id: "I1", status: "InProgress", cname: "")
        await #expect(throws: CDNError(.failed, operation: "cloudfront GetInvalidation I1", message: "the invalidation did not complete within 4 minutes")) {
            _ = try await Self.cloudFront(transport, clock: clock).waitForPurge(purge)
        }
        #expect(clock.now == 1_800_000_000 + CloudFrontCDN.purgeTimeout)
        #expect(clock.sleeps == [1, 2, 4, 8] + Array(repeating: 15, count: 15))
        #expect(transport.sent.count == clock.sleeps.count + 1)
    }

    @Test func aCloudFrontPurgeIsStampedWithTheInjectedClock() async throws {
        let transport = Answering { _ in "<Invalidation><Id>I1</Id><Status>InProgress</Status></Invalidation>" }
        _ = try await Self.cloudFront(transport, clock: ManualClock(now: 1_800_000_000.25)).purge(id: "E1", paths: ["/img/*"])
        let body = String(decoding: try #require(transport.sent.first?.body), as: UTF8.self)
        #expect(body.contains("<CallerReference>mcloud-purge-1800000000250</CallerReference>"))
    }

    @Test func aGCorePurgeThatNeverFinishesTimesOutOnTheInjectedClock() async {
        let clock = ManualClock()
        let transport = Answering { _ in #"{"results":[{"purge_id":7,"status":"In progress"}]}"# }
        let cdn = GCoreCDN(baseURL: "http://cdn.invalid/cdn", credential: .apiKey("key"), transport: transport, pollInterval: 5, timeout: 900, clock: clock)
        let purge = CDNPurge(resourceID: "1", id: "7", status: "In progress", cname: "shop.cdn.example")
        await #expect(throws: CDNError(.failed, operation: "G-Core CDN", message: "purge 7 finished not reached within 900 s")) {
            _ = try await cdn.waitForPurge(purge)
        }
        #expect(clock.sleeps == Array(repeating: 5, count: 180))
        #expect(transport.sent.count == 181)
        #expect(transport.sent.allSatisfy { $0.url == "http://cdn.invalid/cdn/purge_statuses?cname=shop.cdn.example" })
    }
}
