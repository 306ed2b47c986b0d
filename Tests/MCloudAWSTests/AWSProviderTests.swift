import Foundation
@testable import MCloudAWS
@testable import MCloudAWSProvider
import MCloudCore
import MCloudHTTP
import MCloudProvider
import MCloudTestSupport
import Synchronization
import Testing

/// The provider against moto through a proxy that throttles, fails and loses answers on purpose.
@Suite(.enabled(if: MotoBed.required, "start scripts/testbed/moto.sh to run the moto tests"))
struct AWSProviderMotoTests {
    @Test("a RunInstances answer lost after moto acted, throttled reads and a 503 still give exactly one instance, which refresh reads back unchanged")
    func lostCreateAnswerGivesOneInstance() async throws {
        let upstream = try #require(MotoBed.values?["MCLOUD_TEST_MOTO_URL"])
        let proxy = try FaultProxy([upstream, "RunInstances=drop:1,DescribeInstances=throttle:2,DescribeImages=503:1"])
        let direct = try MotoBed.client(region: "eu-west-1")
        let client = AWSClient(
            configuration: AWSConfiguration(credentials: direct.configuration.credentials, region: "eu-west-1", endpointURL: "http://127.0.0.1:\(proxy.port)"),
            transport: CurlTransport(timeouts: HTTPTimeouts(connect: 5, total: 30)),
            retryPolicy: RetryPolicy(maxAttempts: 4, baseDelay: 0.05, maxDelay: 0.2, budget: 2, deadline: BedTiming.requestDeadline)
        )
        let provider = AWSResourceProvider(cloud: "aws-irl") { () throws(ProviderError) in client }
        let application = MotoBed.name("lost")
        let server = ProviderFixtures.server(application: application)
        let observed = try await provider.create(server)

        let instances = try await EC2Client(client: direct).describeInstances(tags: ["application": application], states: AWSInventory.liveStates)
        #expect(instances.map(\.id) == [observed.providerID])
        #expect(instances.first?.instanceType == "m6i.large" && instances.first?.zone == "eu-west-1b")
        #expect(try await proxy.injected() == ["RunInstances=drop": 1, "DescribeInstances=throttle": 2, "DescribeImages=503": 1])

        let refreshed = try await provider.refresh(application: application, desired: [server], recorded: [])
        #expect(refreshed.map(\.address) == [server.address])
        #expect(refreshed.first.map { FieldDiff.same(ResourceBody.setting(["status"], to: nil, in: $0.attributes), server.body) } == true)
        try await provider.delete(.init(address: server.address, provider: "aws", cloud: "aws-irl", providerID: observed.providerID, attributes: server.body.objectDictionary))
        #expect(try await EC2Client(client: direct).describeInstances(tags: ["application": application], states: AWSInventory.liveStates).isEmpty)
    }

    /// The EndpointSlices and egress policies that name a database VM take its addresses from what the provider
    /// reports: the made instance's and the refreshed one's, the public address before the private one.
    @Test func aDatabaseVMReportsItsPublicThenItsPrivateAddress() async throws {
        let client = try MotoBed.client(region: "eu-west-1")
        let provider = AWSResourceProvider(cloud: "aws-irl") { () throws(ProviderError) in client }
        let application = MotoBed.name("addresses")
        let server = ProviderFixtures.server(application: application)
        let made = try await provider.create(server)

        let instance = try #require(try await EC2Client(client: client).describeInstances(ids: [made.providerID]).first)
        // A default subnet maps a public address on launch, in moto as in AWS.
        let expected = try [#require(instance.publicIP), #require(instance.privateIP)]
        #expect(ResourceBody(made.attributes).reportedAddresses == expected)
        let refreshed = try await provider.refresh(application: application, desired: [server], recorded: [])
        #expect(refreshed.map { ResourceBody($0.attributes).reportedAddresses } == [expected])
        try await provider.delete(.init(address: server.address, provider: "aws", cloud: "aws-irl", providerID: made.providerID, attributes: server.body.objectDictionary))
    }

    /// RDS gives its endpoint as a host name: the provider reports what it resolves to when made and when refreshed.
    @Test func aManagedDatabaseReportsTheAddressesItsEndpointResolvesTo() async throws {
        let client = try MotoBed.client(region: "eu-west-1")
        let asked = Mutex<[String]>([])
        let resolver = HostResolver { host in
            asked.withLock { $0.append(host) }
            return ["10.0.3.7"]
        }
        let provider = AWSResourceProvider(cloud: "aws-irl", settings: .init(resolver: resolver)) { () throws(ProviderError) in client }
        let application = MotoBed.name("endpoint")
        let database = ProviderFixtures.managed(application: application)
        let made = try await provider.create(database)
        #expect(ResourceBody(made.attributes).reportedAddresses == ["10.0.3.7"])
        let refreshed = try await provider.refresh(application: application, desired: [database], recorded: [])
        #expect(refreshed.map { ResourceBody($0.attributes).reportedAddresses } == [["10.0.3.7"]])
        let endpoint = try #require(try await RDSClient(client: client).describeInstance(made.providerID)?.endpoint)
        #expect(asked.withLock { $0 } == [endpoint, endpoint])
        try await provider.delete(.init(address: database.address, provider: "aws", cloud: "aws-irl", providerID: made.providerID, attributes: database.body.objectDictionary))
    }
}

extension AWSProviderMotoTests {
    /// The engine puts the address in front of a provider's error, so the provider names the operation, not the
    /// address again (chaos saw `aws.aws-irl.BackupIdentity.x: aws.aws-irl.BackupIdentity.x: iam CreateUser: ...`).
    @Test func aRefusedCreateNamesItsOperationAndLeavesTheAddressToTheEngine() async throws {
        let client = try MotoBed.client(region: "eu-west-1", secret: "not-the-secret")
        let provider = AWSResourceProvider(cloud: "aws-irl") { () throws(ProviderError) in client }
        let server = ProviderFixtures.server(application: MotoBed.name("refused"))
        await #expect {
            _ = try await provider.create(server)
        } throws: { error in
            let error = error as? ProviderError
            return error?.kind == .unauthorized && error?.message.hasPrefix("apply: ") == true && error?.message.contains(server.address.rawValue) == false
        }
    }
}

/// Desired resources as the renderer makes them.
enum ProviderFixtures {
    static func managed(application: String) -> DesiredResource {
        resource(.managedDatabase, "db", application: application, spec: [
            ("engine", .string("postgresql")), ("version", .string("16")), ("port", .int(5432)), ("standbys", .int(0)),
            ("size", .object([("vcpu", .int(2)), ("memoryGiB", .int(8)), ("storageGiB", .int(20))])),
        ])
    }

    static func server(application: String) -> DesiredResource {
        resource(.databaseServer, "db.0", application: application, spec: [
            ("role", .string("primary")), ("engine", .string("postgresql")), ("version", .string("16")), ("port", .int(5432)),
            ("flavor", .object([("vcpu", .int(2)), ("memoryGiB", .int(8))])), ("zone", .string("eu-west-1b")),
            // moto has no Debian AMI; its Canonical ones stand in, found by owner and name as Debian's would be.
            ("image", .object([("family", .string("debian-12")), ("name", .string("ubuntu/images/hvm-ssd/ubuntu-*")), ("owner", .string("099720109477"))])),
        ])
    }

    private static func resource(_ kind: ResourceKind, _ name: String, application: String, spec: [(String, JSONValue)]) -> DesiredResource {
        let address = ResourceAddress("aws.aws-irl.\(kind.rawValue).\(application).\(name)")
        let body: JSONValue = .object([
            ("apiVersion", .string("infrastructure.mcloud.io/v1")), ("kind", .string(kind.rawValue)),
            ("metadata", .object([
                ("name", .string("\(application).\(name)")), ("address", .string(address.rawValue)), ("cloud", .string("aws-irl")), ("provider", .string("aws")),
                ("labels", .object([("app.kubernetes.io/part-of", .string(application)), ("mcloud.io/cell", .string("db"))])),
            ])),
            ("spec", .object(spec)),
        ])
        return DesiredResource(address: address, provider: "aws", cloud: "aws-irl", type: kind, body: body, dependencies: [])
    }
}

extension JSONValue {
    var objectDictionary: [String: JSONValue] { Dictionary(objectPairs, uniquingKeysWith: { first, _ in first }) }
}

/// `Fixtures/aws_fault_proxy.py`, killed when the test ends.
final class FaultProxy {
    let script: ScriptProcess
    var port: Int { script.port }

    init(_ arguments: [String]) throws {
        script = try ScriptProcess(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/aws_fault_proxy.py").path, arguments)
    }

    /// How many faults of each kind the proxy injected.
    func injected() async throws -> [String: Int] {
        let response = try await CurlTransport().send(HTTPRequest(method: .GET, url: "http://127.0.0.1:\(port)/__faults"))
        let parsed = try JSONParser.parse(response.body)
        return Dictionary(parsed.objectPairs.compactMap { key, value in value.intValue.map { (key, $0) } }, uniquingKeysWith: { first, _ in first })
    }
}
