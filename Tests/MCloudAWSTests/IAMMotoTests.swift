import Testing
@testable import MCloudAWS

/// `IAMClient` against the moto bed, which checks signatures: a scoped user's whole life.
@Suite(.enabled(if: MotoBed.required, "start scripts/testbed/moto.sh to run the moto tests"))
struct IAMMotoTests {
    @Test func aUserUnderMcloudGetsItsTagsPolicyAndKeysAndIsDeletedWithThem() async throws {
        let iam = IAMClient(client: try MotoBed.client(region: "eu-west-1"))
        let name = MotoBed.name("iam")
        let tags = ["mcloud.io/managed-by": "mcloud", "mcloud.io/address": "aws.eu/BackupIdentity/\(name)"]
        let user = try await iam.createUser(name: name, path: "/mcloud/", tags: tags)
        #expect(user.path == "/mcloud/" && user.arn.hasSuffix("user/mcloud/\(name)"))
        #expect(try await iam.user(named: name)?.tags == tags)
        #expect(try await iam.listUsers(pathPrefix: "/mcloud/").contains { $0.name == name })
        #expect(try await !iam.listUsers(pathPrefix: "/elsewhere/").contains { $0.name == name })

        let document = #"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::b/db.0/*"}]}"#
        try await iam.putUserPolicy(userName: name, policyName: "backup", document: document)
        #expect(try await iam.userPolicy(userName: name, policyName: "backup") == document)
        #expect(try await iam.listUserPolicies(userName: name) == ["backup"])

        let first = try await iam.createAccessKey(userName: name)
        let second = try await iam.createAccessKey(userName: name)
        #expect(Set(try await iam.listAccessKeys(userName: name).map(\.id)) == [first.key.id, second.key.id])
        try await iam.deleteAccessKey(userName: name, id: first.key.id)
        #expect(try await iam.listAccessKeys(userName: name).map(\.id) == [second.key.id])

        let conflict = await #expect(throws: AWSError.self) { try await iam.deleteUser(name: name) }
        #expect(conflict?.code == "DeleteConflict")
        try await iam.deleteAccessKey(userName: name, id: second.key.id)
        try await iam.deleteUserPolicy(userName: name, policyName: "backup")
        try await iam.deleteUser(name: name)
        #expect(try await iam.user(named: name) == nil)
        try await iam.deleteUser(name: name)
    }
}
