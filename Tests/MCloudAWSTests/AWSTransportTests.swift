import Foundation
import MCloudHTTP
import MCloudTestSupport
import Testing
@testable import MCloudAWS

/// mcloud's own S3 requests to an endpoint whose certificate a private CA signs (moto's TLS front): verified against
/// the CA of the file `AWS_CA_BUNDLE` names, as the AWS CLI does, and refused without it; a file that is no PEM
/// certificate is a configuration error naming it.
@Suite(.enabled(if: MotoBed.required, "start scripts/testbed/moto.sh to run the moto tests"))
struct AWSTransportTests {
    static func s3(environment: [String: String]) throws -> S3Client {
        let values = try #require(MotoBed.values)
        let credentials = AWSCredentials(accessKeyID: values["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"] ?? "", secretAccessKey: values["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"] ?? "")
        return S3Client(client: AWSClient(
            configuration: AWSConfiguration(credentials: credentials, region: "us-east-1", endpointURL: values["MCLOUD_TEST_MOTO_TLS_URL"] ?? ""),
            transport: try AWSTransport.curl(environment: environment, timeouts: HTTPTimeouts(connect: 5, total: 30)),
            retryPolicy: RetryPolicy(maxAttempts: 1)
        ))
    }

    @Test func aPrivateEndpointIsTrustedWithTheCAOfAWSCABundleAndRefusedWithout() async throws {
        let authority = try #require(MotoBed.values?["MCLOUD_TEST_MOTO_CA"])
        let name = MotoBed.name("ca")
        #expect(try await !Self.s3(environment: ["AWS_CA_BUNDLE": authority]).bucketExists(name))
        await #expect {
            _ = try await Self.s3(environment: [:]).bucketExists(name)
        } throws: { error in
            "\(error)".contains("certificate")
        }
    }

    @Test func aBundleThatIsNoCertificateIsAConfigurationError() throws {
        let file = NSTemporaryDirectory() + "mcloud-not-a-ca-\(UUID().uuidString.prefix(8))"
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect {
            _ = try AWSTransport.curl(environment: ["AWS_CA_BUNDLE": file], timeouts: HTTPTimeouts())
        } throws: { error in
            "\(error)".contains("AWS_CA_BUNDLE names \(file), which is not a readable PEM certificate file")
        }
    }
}
