import Foundation
import MCloudAWS
import MCloudCDN
import MCloudHTTP
import Testing

/// CloudFront answers that must not make mcloud loop or read a distribution as gone (docs/security.md, M2 and Low).
@Suite struct CloudFrontHostileAnswerTests {
    /// Every request gets the same answer.
    struct Answer: HTTPTransport {
        var body: String

        func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
            HTTPResponse(status: 200, headers: [("etag", "E1")], body: Array(body.utf8))
        }
    }

    static func cdn(_ transport: Answer) -> CloudFrontCDN {
        let configuration = AWSConfiguration(credentials: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret"), region: "us-east-1")
        return CloudFrontCDN(client: CloudFrontClient(client: AWSClient(configuration: configuration, transport: transport, retryPolicy: RetryPolicy(maxAttempts: 1))))
    }

    /// The page limit itself is `PageTokens`'s, tested with S3 in MCloudAWSTests.
    @Test func aListingThatRepeatsItsMarkerIsAnErrorNamingTheListing() async throws {
        let page = "<DistributionList><IsTruncated>true</IsTruncated><NextMarker>again</NextMarker><Items/></DistributionList>"
        await #expect {
            try await Self.cdn(Answer(body: page)).list()
        } throws: { error in
            "\(error)".contains("cloudfront ListDistributions") && "\(error)".contains("a second time")
        }
    }

    /// Read as absent, a distribution would be created a second time by the next apply.
    @Test(arguments: ["<Unexpected/>", "<Distribution><Status>Deployed</Status></Distribution>"])
    func aDistributionAnswerOfAnotherShapeIsAnErrorNeverAbsent(body: String) async throws {
        await #expect(throws: CDNError.self) {
            try await Self.cdn(Answer(body: body)).read(id: "E123")
        }
    }
}
