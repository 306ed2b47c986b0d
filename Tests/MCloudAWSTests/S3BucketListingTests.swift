import MCloudHTTP
import Testing
@testable import MCloudAWS

/// Listing buckets by tag reads each bucket's tags after the listing; a bucket deleted in between (by another
/// application's destroy on the same account) must not fail everyone's refresh. Found when two end-to-end suites
/// shared moto.
@Suite struct S3BucketListingTests {
    @Test func aBucketDeletedBetweenTheListingAndItsTagsIsLeftOut() async throws {
        let transport = ScriptedTransport([
            .xml(200, "<ListAllMyBucketsResult><Buckets><Bucket><Name>mcloud-gone</Name></Bucket><Bucket><Name>mcloud-kept</Name></Bucket></Buckets></ListAllMyBucketsResult>"),
            .xml(404, "<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>"),
            .xml(200, "<Tagging><TagSet><Tag><Key>application</Key><Value>bank</Value></Tag></TagSet></Tagging>"),
        ])
        let s3 = S3Client(client: TestConfiguration.client(transport))
        #expect(try await s3.listBuckets(prefix: "mcloud-", tags: ["application": "bank"]) == ["mcloud-kept"])
        #expect(transport.sent.count == 3)
    }
}
