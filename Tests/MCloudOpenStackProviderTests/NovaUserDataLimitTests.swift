import Foundation
import MCloudAWS
import MCloudCore
import MCloudOpenStack
import MCloudProvider
import MCloudTestSupport
import Testing
@testable import MCloudOpenStackProvider

/// Nova takes 65,535 characters of base64 user data: a database server whose gzipped user data would encode longer is
/// a plan-time problem naming its size, so apply never stops at the server's create; one that fits is none.
struct NovaUserDataLimitTests {
    struct LimitCase: Sendable, CustomTestStringConvertible {
        var clients: Int
        /// The DR bucket's S3-compatible endpoint; nil for AWS's own S3, nil bucket for none.
        var bucket: String??
        var refused: Bool
        var testDescription: String { "\(clients) clients, bucket \(bucket.map { $0 ?? "on AWS" } ?? "none"): \(refused ? "refused" : "fits")" }
    }

    /// The operator's `AWS_CA_BUNDLE` is Debian's whole system bundle (as CI machines set it, over 200 KB): the VM
    /// gets none of it, on AWS's S3 or an endpoint of its own, as its own store holds those CAs.
    @Test(arguments: [
        LimitCase(clients: 150, bucket: .none, refused: false),
        LimitCase(clients: 600, bucket: .none, refused: true),
        LimitCase(clients: 150, bucket: .some(nil), refused: false),
        LimitCase(clients: 150, bucket: .some("https://s3.example.net"), refused: false),
    ])
    func aServerWhoseGzippedUserDataOutgrowsNovaIsAPlanProblem(_ test: LimitCase) async throws {
        let key = NSTemporaryDirectory() + "nova-user-data-\(UUID().uuidString).key"
        defer { try? FileManager.default.removeItem(atPath: key) }
        #expect(try await Command.run("/usr/bin/age-keygen", ["-o", key]).succeeded)
        let provider = OpenStackResourceProvider(
            cloud: "sel-msk", environment: ["MCLOUD_AGE_KEY_FILE": key, "AWS_CA_BUNDLE": "/etc/ssl/certs/ca-certificates.crt"],
            connect: { () throws(OpenStackError) -> OpenStackSession in throw .configuration("unused", at: nil, file: nil) },
            objectStorage: { () throws(AWSError) -> S3Client in throw .configuration("unused") }
        )
        let backup = test.bucket.map { BucketLocation(cloud: "aws-fra", bucket: "mcloud-bank-ledger-dr", region: "eu-central-1", endpoint: $0) }
        let server = DatabaseServerFixture.primary(
            clients: test.clients, address: "openstack.sel-msk.DatabaseServer.bank.ledger.0", provider: "openstack", cloud: "sel-msk", backup: backup
        )
        let problems = provider.problems(desired: server)
        if test.refused {
            #expect(problems.count == 1 && problems[0].hasPrefix("its user data is ") && problems[0].contains(" characters of base64, over the 65535 Nova accepts"), "\(problems)")
        } else {
            #expect(problems.isEmpty, "\(problems)")
        }
    }
}
