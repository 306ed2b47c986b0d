@testable import MCloudAWS
@testable import MCloudAWSProvider
import MCloudCore
import MCloudProvider
import Testing

/// A DR leg's own IAM user (issue 32, H2 step 2), applied, refreshed and destroyed by the provider on moto.
@Suite(.enabled(if: MotoBed.required, "start scripts/testbed/moto.sh to run the moto tests"))
struct BackupIdentityMotoTests {
    static func identity(application: String, restoring reportKey: String? = nil) -> DesiredResource {
        let name = reportKey == nil ? "\(application).db" : "\(application).db.restore-1"
        let address: ResourceAddress = "aws.aws-irl.BackupIdentity.\(name)"
        let access: [(String, JSONValue)] = reportKey.map { [("access", .string("restore")), ("reportKey", .string($0))] } ?? [("access", .string("write"))]
        let body: JSONValue = .object([
            ("apiVersion", .string("infrastructure.mcloud.io/v1")), ("kind", .string("BackupIdentity")),
            ("metadata", .object([
                ("name", .string(name)), ("address", .string(address.rawValue)), ("cloud", .string("aws-irl")), ("provider", .string("aws")),
                ("labels", .object([("app.kubernetes.io/part-of", .string(application)), ("mcloud.io/cell", .string("db"))])),
            ])),
            ("spec", .object([
                ("userName", .string(reportKey == nil ? application : name)), ("bucketName", .string("\(application)-bucket")),
                ("prefix", .string("\(application).db.0/")),
            ] + access)),
        ])
        return DesiredResource(address: address, provider: "aws", cloud: "aws-irl", type: "BackupIdentity", body: body, dependencies: [])
    }

    @Test func aLegsUserIsMadeUnderMcloudWithAWriteOnlyPolicyFoundByRefreshAndGoneAfterDestroy() async throws {
        let client = try MotoBed.client(region: "eu-west-1")
        let iam = IAMClient(client: client)
        let provider = AWSResourceProvider(cloud: "aws-irl") { () throws(ProviderError) in client }
        let application = MotoBed.name("leg")
        let desired = Self.identity(application: application)

        let observed = try await provider.create(desired)
        _ = try await provider.update(desired, recorded: .init(address: desired.address, provider: "aws", cloud: "aws-irl", providerID: observed.providerID, attributes: desired.body.objectDictionary))
        #expect(observed.providerID == application)
        let user = try #require(try await iam.user(named: application))
        #expect(user.path == "/mcloud/" && user.tags["mcloud.io/address"] == desired.address.rawValue)
        let policy = try await iam.userPolicy(userName: application, policyName: "mcloud-backup")
        #expect(policy == #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:PutObject","s3:AbortMultipartUpload"],"Resource":"arn:aws:s3:::\#(application)-bucket/\#(application).db.0/*"}]}"#)
        #expect(try await iam.listUserPolicies(userName: application) == ["mcloud-backup"])

        let refreshed = try await provider.refresh(application: application, desired: [desired], recorded: [])
        #expect(refreshed.map(\.address) == [desired.address])
        #expect(refreshed.first.map { FieldDiff.same($0.attributes, desired.body) } == true)

        // A key a VM got, which destroy must remove before IAM lets the user go.
        _ = try await iam.createAccessKey(userName: application)
        try await provider.delete(.init(address: desired.address, provider: "aws", cloud: "aws-irl", providerID: observed.providerID, attributes: desired.body.objectDictionary))
        #expect(try await !iam.listUsers(pathPrefix: "/mcloud/").contains { $0.name == application })
        #expect(try await provider.refresh(application: application, desired: [desired], recorded: []).isEmpty)
        try await provider.delete(.init(address: desired.address, provider: "aws", cloud: "aws-irl", providerID: observed.providerID, attributes: desired.body.objectDictionary))
    }

    /// H2 step 4: a drill's restore user (the body `RestoreIdentity` gives it) lives under `/mcloud/restore/`, may read
    /// the recovery point's folder and write the report only, is an orphan refresh lists, and is gone with its key.
    @Test func aRestoreUserIsMadeUnderMcloudRestoreWithAReadAndReportPolicyAndGoneAfterDelete() async throws {
        let client = try MotoBed.client(region: "eu-west-1")
        let iam = IAMClient(client: client)
        let provider = AWSResourceProvider(cloud: "aws-irl") { () throws(ProviderError) in client }
        let application = MotoBed.name("restore")
        let desired = Self.identity(application: application, restoring: "\(application).db.drill-1/restored.json")
        let user = "\(application).db.restore-1"

        let observed = try await provider.create(desired)
        #expect(observed.providerID == user)
        let made = try #require(try await iam.user(named: user))
        #expect(made.path == "/mcloud/restore/" && made.tags["mcloud.io/address"] == desired.address.rawValue && made.tags["cell"] == "db")
        #expect(try await iam.listUserPolicies(userName: user) == ["mcloud-restore"])
        let policy = try await iam.userPolicy(userName: user, policyName: "mcloud-restore")
        #expect(policy == #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],"Resource":"arn:aws:s3:::\#(application)-bucket/\#(application).db.0/*"},{"Effect":"Allow","Action":["s3:ListBucket"],"Resource":"arn:aws:s3:::\#(application)-bucket","Condition":{"StringLike":{"s3:prefix":["\#(application).db.0/*"]}}},{"Effect":"Allow","Action":["s3:PutObject"],"Resource":"arn:aws:s3:::\#(application)-bucket/\#(application).db.drill-1/restored.json"}]}"#)
        // One a killed drill left is the application's, so the next plan's refresh finds it and deletes it.
        #expect(try await provider.refresh(application: application, desired: [], recorded: []).map(\.address) == [desired.address])

        _ = try await iam.createAccessKey(userName: user)
        try await provider.delete(.init(address: desired.address, provider: "aws", cloud: "aws-irl", providerID: user, attributes: desired.body.objectDictionary))
        #expect(try await iam.listUsers(pathPrefix: "/mcloud/restore/").allSatisfy { $0.name != user })
    }
}
