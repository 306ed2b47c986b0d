import Foundation
import MCloudProvider
import MCloudTestSupport
import Testing
@testable import MCloudAWS
@testable import MCloudAWSProvider

/// EC2 takes 16,384 bytes of user data: a database VM whose gzipped user data would be longer is a plan-time problem
/// naming its size, so apply never stops at RunInstances; one that fits is none.
struct AWSUserDataLimitTests {
    @Test(arguments: [(2, false), (150, true)])
    func aServerWhoseGzippedUserDataOutgrowsEC2IsAPlanProblem(clients: Int, refused: Bool) async throws {
        let key = NSTemporaryDirectory() + "aws-user-data-\(UUID().uuidString).key"
        defer { try? FileManager.default.removeItem(atPath: key) }
        #expect(try await Command.run("/usr/bin/age-keygen", ["-o", key]).succeeded)
        let provider = AWSResourceProvider(cloud: "aws-irl", settings: .init(environment: ["MCLOUD_AGE_KEY_FILE": key])) { () throws(ProviderError) -> AWSClient in
            throw ProviderError(.unavailable, "unused")
        }
        let problems = provider.problems(desired: DatabaseServerFixture.primary(clients: clients, address: "aws.aws-irl.DatabaseServer.bank.ledger.0", provider: "aws", cloud: "aws-irl"))
        if refused {
            #expect(problems.count == 1 && problems[0].hasPrefix("its user data is ") && problems[0].contains(" bytes gzipped, over the 16384 EC2 accepts"), "\(problems)")
        } else {
            #expect(problems.isEmpty, "\(problems)")
        }
    }
}
