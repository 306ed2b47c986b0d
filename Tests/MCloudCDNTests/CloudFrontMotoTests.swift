import Foundation
import MCloudAWS
import MCloudCDN
import MCloudHTTP
import MCloudTestSupport
import Testing

/// CloudFrontCDN against moto's CloudFront (scripts/testbed/moto.sh), on the server that checks no signatures:
/// moto rejects correct signatures on bodiless CloudFront reads (docs/aws.md). In CI a missing bed fails these
/// tests; elsewhere they are skipped until the script has been started.
@Suite(.enabled(if: MotoCloudFront.required, "start scripts/testbed/moto.sh to run the CloudFront tests"))
struct CloudFrontMotoTests {
    @Test("a distribution is created with its origins and cache behaviours, found by its marker, updated with If-Match, purged and deleted")
    func lifecycle() async throws {
        let cdn = CloudFrontCDN(client: CloudFrontClient(client: try MotoCloudFront.client()))
        let unique = "cf-\(UUID().uuidString.prefix(6).lowercased())"
        var spec = sampleSpec("\(unique).images", origins: ["web.\(unique)-eu.aws-use1.origins.mcloud.internal", "web.\(unique)-eu.aws-irl.origins.mcloud.internal"])
        let created = try await cdn.ensure(spec, id: nil)
        #expect(created.status.lowercased() == "deployed")
        #expect(created.origins == spec.origins)
        #expect(created.cacheRules == spec.cacheRules)
        let found = try await cdn.list().filter { $0.marker?.address == spec.marker.address }
        #expect(found.map(\.id) == [created.id])

        // A second ensure with no id adopts the distribution by its marker instead of making another.
        spec.cacheRules = [CDNCacheRule(path: "/static/*", ttlSeconds: 60)]
        let updated = try await cdn.ensure(spec, id: nil)
        #expect(updated.id == created.id)
        #expect(try await cdn.read(id: created.id)?.cacheRules == spec.cacheRules)

        let purge = try await cdn.purge(id: created.id, paths: ["/static/*"])
        #expect(try await cdn.waitForPurge(purge).isFinished)

        try await cdn.delete(id: created.id)
        #expect(try await cdn.read(id: created.id) == nil)
        try await cdn.delete(id: created.id)
    }
}

enum MotoCloudFront {
    static let directory = ProcessInfo.processInfo.environment["MCLOUD_TESTBED_MOTO_DIR"] ?? "/tmp/mcloud-testbed/moto"
    static let values: [String: String]? = {
        guard let data = FileManager.default.contents(atPath: "\(directory)/env") else { return nil }
        return Dictionary(String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> (String, String)? in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }, uniquingKeysWith: { first, _ in first })
    }()
    static let required = values != nil || ProcessInfo.processInfo.environment["CI"] != nil

    static func client() throws -> AWSClient {
        guard let values, let url = values["MCLOUD_TEST_MOTO_OPEN_URL"] else {
            throw AWSError.configuration("no moto test bed: run scripts/testbed/moto.sh start (looked for \(directory)/env)")
        }
        return AWSClient(
            configuration: AWSConfiguration(credentials: AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing"), region: "us-east-1", endpointURL: url),
            transport: CurlTransport(timeouts: HTTPTimeouts(connect: 5, total: 30)), retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.2, budget: 2, deadline: BedTiming.requestDeadline),
            sleeper: QuickSleeper()
        )
    }
}

/// moto answers at once: retries need no real wait.
struct QuickSleeper: Sleeper {
    func sleep(seconds: Double) async throws(HTTPError) {}
}
