import MCloudCore
import MCloudProvider
import Testing
@testable import MCloudAWS
@testable import MCloudAWSProvider

/// The provider's pure rules: names, sizes, replacements and error kinds.
struct AWSProviderRulesTests {
    @Test("bucket and RDS names stay within S3's and RDS's rules and differ per address", arguments: [
        ("aws.aws-irl.BackupBucket.retail-bank-eu.accounts-db", "retail-bank-eu.accounts-db"),
        ("aws.aws-fra.BackupBucket.x", "x"),
        ("aws.aws-fra.BackupBucket." + String(repeating: "Very_Long.Name-", count: 8), String(repeating: "Very_Long.Name-", count: 8)),
    ])
    func names(address: String, name: String) {
        let bucket = AWSNames.bucket(address: address, name: name)
        #expect(bucket.count >= 3 && bucket.count <= 63, "\(bucket)")
        #expect(bucket.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }, "\(bucket)")
        #expect(!bucket.contains("--") && bucket.first?.isLetter == true && bucket.last != "-", "\(bucket)")
        #expect(AWSNames.bucket(address: address + "2", name: name) != bucket)
    }

    @Test("a flavor gets the smallest instance type with the vCPUs and memory asked for", arguments: [
        (2.0, 4.0, false, "c6i.large"), (2, 8, false, "m6i.large"), (4, 16, false, "m6i.xlarge"), (4, 32, false, "r6i.xlarge"),
        (3, 8, false, "m6i.xlarge"), (2, 4, true, "db.m6i.large"), (8, 32, true, "db.m6i.2xlarge"), (1, 64, false, "r6i.2xlarge"),
    ])
    func instanceTypes(vcpu: Double, memory: Double, database: Bool, expected: String) {
        let type = AWSInstanceType.name(vcpu: vcpu, memoryGiB: memory, database: database)
        #expect(type == expected)
        let resources = AWSInstanceType.resources(type)
        #expect(resources.map { Double($0.vcpu) >= vcpu && Double($0.memoryGiB) >= memory } == true)
    }

    @Test("immutable fields, a smaller volume and an older engine need a replacement; other changes do not", arguments: [
        ("Volume", ["spec", "sizeGiB"], JSONValue.int(50), JSONValue.int(100), "spec.sizeGiB cannot shrink on a Volume (100 -> 50)"),
        ("Volume", ["spec", "zone"], .string("eu-west-1a"), .string("eu-west-1b"), "spec.zone cannot change on a Volume"),
        ("DatabaseServer", ["spec", "engine"], .string("mysql"), .string("postgresql"), "spec.engine cannot change on a DatabaseServer"),
        ("ManagedDatabase", ["spec", "version"], .string("15"), .string("16"), "spec.version cannot go down on a ManagedDatabase (16 -> 15)"),
        ("Volume", ["spec", "sizeGiB"], .int(200), .int(100), nil),
        ("ManagedDatabase", ["spec", "version"], .string("17"), .string("16"), nil),
        // A new dependent or standby is in the user data too: planned as an update, it would never reach the server.
        ("DatabaseServer", ["spec", "access", "clients"], .array([.string("b")]), .array([.string("a")]),
         "spec.access changed: its clients' users and its certificate live in the server's user data, which cannot change"),
        ("DatabaseServer", ["spec", "replication", "standbys"], .array([.string("standby_1"), .string("standby_2")]), .array([.string("standby_1")]),
         "spec.replication changed: its replication roles live in the server's user data, which cannot change"),
    ] as [(String, [String], JSONValue, JSONValue, String?)])
    func replacements(kind: String, path: [String], wanted: JSONValue, current: JSONValue, reason: String?) {
        let provider = AWSResourceProvider(cloud: "aws-irl") { () throws(ProviderError) -> AWSClient in throw ProviderError(.unavailable, "unused") }
        let desired = DesiredResource(
            address: "aws.aws-irl.\(kind).x", provider: "aws", cloud: "aws-irl", type: ResourceKind(kind), body: ResourceBody.setting(path, to: wanted, in: .object([])),
            dependencies: []
        )
        #expect(provider.replacementReasons(desired: desired, current: ResourceBody.setting(path, to: current, in: .object([]))) == (reason.map { [$0] } ?? []))
    }

    @Test("quota errors are capacity, refused credentials unauthorized, the rest failed, each with AWS's message", arguments: [
        ("InstanceLimitExceeded", 400, ProviderError.Kind.capacity), ("TooManyBuckets", 400, .capacity), ("AuthFailure", 401, .unauthorized),
        ("SignatureDoesNotMatch", 403, .unauthorized), ("InvalidParameterValue", 400, .failed),
    ])
    func errorKinds(code: String, status: Int, kind: ProviderError.Kind) {
        let error = AWSError.service(AWSServiceError(operation: "ec2 RunInstances", status: status, code: code, message: "the cloud's words"))
        let mapped = AWSResourceProvider.providerError(error, what: "aws.aws-irl.DatabaseServer.x")
        #expect(mapped.kind == kind)
        #expect(mapped.message.contains("aws.aws-irl.DatabaseServer.x") && mapped.message.contains(code) && mapped.message.contains("the cloud's words"))
    }
}
