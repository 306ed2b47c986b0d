import Foundation
import MCloudCore
import MCloudHTTP
import MCloudTestSupport
import Synchronization
import Testing
@testable import MCloudAWS

/// Answers made up per request, for listings that never end.
final class GeneratedTransport: HTTPTransport {
    private let count = Mutex(0)
    private let answer: @Sendable (Int) -> HTTPResponse

    init(_ answer: @escaping @Sendable (Int) -> HTTPResponse) {
        self.answer = answer
    }

    var requests: Int { count.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        answer(count.withLock { count in
            count += 1
            return count
        })
    }
}

/// What a hostile or broken AWS endpoint may answer, and what mcloud must do instead of crashing, looping or
/// reading it as "deleted" (docs/security.md, M1, M2 and the Low findings).
@Suite struct HostileAnswerTests {
    static func client(_ transport: any HTTPTransport, region: String = "eu-west-1", endpoint: String? = nil) -> AWSClient {
        AWSClient(
            configuration: AWSConfiguration(credentials: TestConfiguration.credentials, region: region, endpointURL: endpoint), transport: transport,
            retryPolicy: RetryPolicy(maxAttempts: 1), sleeper: RecordingSleeper(), clock: ManualClock(now: TestConfiguration.date.timeIntervalSince1970), jitter: { 1 }
        )
    }

    static func message(_ error: any Error) -> String { "\(error)" }

    // MARK: M1

    /// 420 KB of nested elements overflowed the parser's recursion: SIGSEGV, and a crash during apply kept the lock.
    @Test func anAnswerNestedDeeperThanTheLimitIsAnErrorNotACrash() async throws {
        let deep = String(repeating: "<a>", count: 140_000) + String(repeating: "</a>", count: 140_000)
        let rds = RDSClient(client: Self.client(ScriptedTransport([.xml(200, deep)])))
        await #expect {
            try await rds.describeInstances()
        } throws: { error in
            Self.message(error).contains("rds DescribeDBInstances") && Self.message(error).contains("deeper than")
        }
    }

    @Test(arguments: [
        (XMLNode.Limits(maxDepth: 3), "<a><b><c><d/></c></b></a>", XMLNode.Limits.Kind.depth),
        (XMLNode.Limits(maxElements: 4), "<a><b/><b/><b/><b/></a>", .elements),
        (XMLNode.Limits(maxBytes: 8), "<a>123456789</a>", .bytes),
    ])
    func eachLimitOfTheParserIsNamedInItsError(limits: XMLNode.Limits, document: String, kind: XMLNode.Limits.Kind) {
        #expect(throws: XMLNode.ParseError.self) { try XMLNode.parse(Array(document.utf8), limits: limits) }
        #expect((try? XMLNode.parse(Array(document.utf8), limits: XMLNode.Limits())) != nil, "within the default limits")
        do {
            _ = try XMLNode.parse(Array(document.utf8), limits: limits)
        } catch {
            #expect(error.limit == kind)
        }
    }

    // MARK: M2

    static func s3Page(token: String) -> HTTPResponse {
        .xml(200, "<ListBucketResult><IsTruncated>true</IsTruncated><Contents><Key>k</Key></Contents><NextContinuationToken>\(token)</NextContinuationToken></ListBucketResult>")
    }

    /// A server that gives the same token again is caught on the second page; one that gives a new token forever
    /// at the page limit.
    @Test(arguments: [
        (true, "the server gave the page token \"t\" a second time", 2),
        (false, "still more pages after \(PageTokens.defaultMaxPages)", PageTokens.defaultMaxPages),
    ])
    func anEndlessS3ListingIsAnErrorNamingTheListing(sameToken: Bool, says: String, requests: Int) async throws {
        let transport = GeneratedTransport { page in Self.s3Page(token: sameToken ? "t" : "t\(page)") }
        let s3 = S3Client(client: Self.client(transport), pathStyle: true)
        await #expect {
            try await s3.objects(bucket: "dr", prefix: "db.0/")
        } throws: { error in
            Self.message(error).contains("S3 ListObjectsV2 dr") && Self.message(error).contains(says)
        }
        #expect(transport.requests == requests)
    }

    @Test(arguments: ["ec2", "volumes", "rds"])
    func anEC2OrRDSListingThatRepeatsItsTokenIsAnError(listing: String) async throws {
        let page: String = switch listing {
        case "ec2": "<DescribeInstancesResponse><reservationSet/><nextToken>again</nextToken></DescribeInstancesResponse>"
        case "volumes": "<DescribeVolumesResponse><volumeSet/><nextToken>again</nextToken></DescribeVolumesResponse>"
        default: "<DescribeDBInstancesResponse><DescribeDBInstancesResult><DBInstances/><Marker>again</Marker></DescribeDBInstancesResult></DescribeDBInstancesResponse>"
        }
        let client = Self.client(GeneratedTransport { _ in .xml(200, page) })
        await #expect {
            switch listing {
            case "ec2": _ = try await EC2Client(client: client).describeInstances()
            case "volumes": _ = try await EC2Client(client: client).describeVolumes()
            default: _ = try await RDSClient(client: client).describeInstances()
            }
        } throws: { error in
            Self.message(error).contains("a second time")
        }
    }

    // MARK: Low: an unexpected document

    /// An RDS answer of another shape had no DBInstance in it, which read as "deleted outside mcloud": apply would
    /// have created a second database.
    @Test func anAnswerWithAnUnexpectedRootIsAnErrorNeverAbsent() async throws {
        let rds = RDSClient(client: Self.client(ScriptedTransport([.xml(200, "<Unexpected><Nothing/></Unexpected>")])))
        await #expect {
            try await rds.describeInstance("db-1")
        } throws: { error in
            Self.message(error).contains("<Unexpected> document, not <DescribeDBInstancesResponse>")
        }
    }

    // MARK: Low: region

    @Test(arguments: ["x@127.0.0.1:18082/", "eu-west-1.evil.example/", "EU-WEST-1", "eu-west-", ""])
    func aRegionThatIsNoRegionNameIsRefusedBeforeAnythingIsSent(region: String) async throws {
        let transport = ScriptedTransport([])
        await #expect {
            try await EC2Client(client: Self.client(transport, region: region)).describeInstances()
        } throws: { error in
            Self.message(error).contains("is not an AWS region name")
        }
        #expect(transport.sent.isEmpty)
    }

    @Test(arguments: ["x@127.0.0.1:18082/", "eu-west-1.evil.example/", "EU-WEST-1"])
    func anEKSTokenIsNeverMadeForAHostBuiltFromARegionThatIsNoRegionName(region: String) {
        #expect { try EKSClient(client: Self.client(ScriptedTransport([]), region: region)).token(clusterName: "prod-1") } throws: { error in
            Self.message(error).contains("is not an AWS region name")
        }
    }

    @Test(arguments: ["us-east-1", "eu-central-2", "us-gov-west-1", "cn-north-1", "ap-southeast-4"])
    func realRegionNamesPass(region: String) throws {
        try AWSClient.checkRegion(region)
    }

    // MARK: Low: SigV4 with `./..` and `:443`

    @Test func anEndpointWithTheDefaultPortIsSignedForTheHostLibcurlSends() {
        let signer = SigV4Signer(credentials: TestConfiguration.credentials, region: "eu-west-1", service: "s3", options: .s3)
        let withPort = signer.sign(HTTPRequest(method: .GET, url: "https://s3.example.com:443/b/k"), at: TestConfiguration.date)
        let without = signer.sign(HTTPRequest(method: .GET, url: "https://s3.example.com/b/k"), at: TestConfiguration.date)
        #expect(withPort.signature == without.signature)
        #expect(withPort.canonicalRequest.contains("\nhost:s3.example.com\n"))
        let otherPort = signer.sign(HTTPRequest(method: .GET, url: "https://s3.example.com:8443/b/k"), at: TestConfiguration.date)
        #expect(otherPort.canonicalRequest.contains("\nhost:s3.example.com:8443\n"))
    }

    /// The key is signed as written (S3 does not normalise), so it must reach the server as written too.
    @Test func anS3KeyWithDotSegmentsReachesTheServerAsSigned() async throws {
        let server = try ScriptProcess(Self.echoServer)
        let client = AWSClient(
            configuration: AWSConfiguration(credentials: TestConfiguration.credentials, region: "eu-west-1", endpointURL: server.url),
            clock: ManualClock(now: TestConfiguration.date.timeIntervalSince1970)
        )
        let answer = try await S3Client(client: client).getObject(bucket: "echo", key: "db.0/./../x")
        let echo = try #require(try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any])
        #expect(echo["path"] as? String == "/echo/db.0/./../x")
        let expected = client.signer(for: .s3, options: .s3).sign(HTTPRequest(method: .GET, url: server.url + "/echo/db.0/./../x"), at: TestConfiguration.date)
        #expect((echo["headers"] as? [String: String])?["authorization"] == expected.request.header("authorization"))
    }

    static let echoServer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("MCloudHTTPTests/Fixtures/http_test_server.py").path

    // MARK: Low: terminal escapes

    @Test func aServerErrorMessageReachesTheTerminalWithoutItsEscapeCodes() async throws {
        let hostile = "<Error><Code>AccessDenied</Code><Message>denied\u{1B}]0;owned\u{07}\u{1B}[2J\nApply complete!</Message></Error>"
        let s3 = S3Client(client: Self.client(ScriptedTransport([.xml(403, hostile)])), pathStyle: true)
        await #expect {
            try await s3.getObject(bucket: "dr", key: "k")
        } throws: { error in
            let text = Self.message(error)
            return !text.unicodeScalars.contains { $0.value < 0x20 } && text.contains("denied\\u{1B}]0;owned\\u{7}\\u{1B}[2J\\u{A}Apply complete!")
        }
    }
}
