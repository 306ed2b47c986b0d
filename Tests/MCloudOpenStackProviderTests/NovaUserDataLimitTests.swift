import Foundation
import MCloudAWS
import MCloudOpenStack
import MCloudProvider
import MCloudTestSupport
import Testing
@testable import MCloudOpenStackProvider

/// Nova takes 65,535 characters of base64 user data: a database server whose gzipped user data would encode longer is
/// a plan-time problem naming its size, so apply never stops at the server's create; one that fits is none.
struct NovaUserDataLimitTests {
    @Test(arguments: [(150, false), (600, true)])
    func aServerWhoseGzippedUserDataOutgrowsNovaIsAPlanProblem(clients: Int, refused: Bool) async throws {
        let key = NSTemporaryDirectory() + "nova-user-data-\(UUID().uuidString).key"
        defer { try? FileManager.default.removeItem(atPath: key) }
        #expect(try await Command.run("/usr/bin/age-keygen", ["-o", key]).succeeded)
        let provider = OpenStackResourceProvider(
            cloud: "sel-msk", environment: ["MCLOUD_AGE_KEY_FILE": key],
            connect: { () throws(OpenStackError) -> OpenStackSession in throw .configuration("unused", at: nil, file: nil) },
            objectStorage: { () throws(AWSError) -> S3Client in throw .configuration("unused") }
        )
        let problems = provider.problems(desired: DatabaseServerFixture.primary(clients: clients, address: "openstack.sel-msk.DatabaseServer.bank.ledger.0", provider: "openstack", cloud: "sel-msk"))
        if refused {
            #expect(problems.count == 1 && problems[0].hasPrefix("its user data is ") && problems[0].contains(" characters of base64, over the 65535 Nova accepts"), "\(problems)")
        } else {
            #expect(problems.isEmpty, "\(problems)")
        }
    }
}
