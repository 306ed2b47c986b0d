import Foundation
import MCloudAWS
import MCloudAWSProvider
import MCloudCore
import MCloudEngine
import MCloudHTTP
import MCloudProvider
import MCloudState
import Synchronization
import Testing

/// A connection to a database on AWS, planned and applied by the engine: its EndpointSlice and egress NetworkPolicy
/// (rendered empty and open) hold the addresses AWS reports once applied (a VM's public then private address, what
/// an RDS endpoint resolves to), and a later plan keeps them (docs/connectivity.md, Names).
@Suite(.enabled(if: MotoBed.required, "start scripts/testbed/moto.sh to run the moto tests"))
struct AWSEndpointSliceFillTests {
    /// What RDS endpoints resolve to here: moto's resolve nowhere.
    static let endpointAddress = "10.0.3.8"

    @Test(arguments: [ResourceKind.databaseServer, .managedDatabase])
    func aSliceAndEgressPolicyNamingAnAWSDatabaseHoldItsAddressesOnceApplied(kind: ResourceKind) async throws {
        let client = try MotoBed.client(region: "eu-west-1")
        let resolver = HostResolver { _ in [Self.endpointAddress] }
        let aws = AWSResourceProvider(cloud: "aws-irl", settings: .init(resolver: resolver)) { () throws(ProviderError) in client }
        let cluster = ClusterObjects()
        let catalog = Catalog(aws: aws, cluster: cluster)
        let application = MotoBed.name("fill")
        let database = kind == .databaseServer ? ProviderFixtures.server(application: application) : ProviderFixtures.managed(application: application)
        let desired = [database, Self.follower(.endpointSlice, of: database), Self.follower(.networkPolicy, of: database)]
        let backend = FileStateBackend(path: NSTemporaryDirectory() + "mcloud-\(application).json")
        _ = try backend.lock(operation: "apply")

        let plan = try await Self.plan(desired, state: nil, catalog)
        let providers = try ProviderSet(needs: plan.changes.map { ($0.address, $0.provider, $0.cloud) }, clouds: Self.clouds, catalog: catalog)
        let outcome = try await Applier(parallelism: 4, tick: 60) { _ in }.apply(plan, providers: providers, recorder: StateRecorder(state: State(), backend: backend))
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")

        let providerID = try #require(try backend.read()?[database.address]?.providerID)
        var expected = [Self.endpointAddress]
        if kind == .databaseServer {
            let instance = try #require(try await EC2Client(client: client).describeInstances(ids: [providerID]).first)
            expected = try [#require(instance.publicIP), #require(instance.privateIP)]
        }
        for follower in desired.dropFirst() {
            #expect(cluster.objects.withLock { $0[follower.address] }.map { ResourceBody($0).targetAddresses } == expected, "\(follower.address)")
        }
        let again = try await Self.plan(desired, state: try backend.read(), catalog)
        #expect(again.changes.filter { $0.action != .noOp }.map(\.address).isEmpty)
        try await aws.delete(.init(address: database.address, provider: "aws", cloud: "aws-irl", providerID: providerID, attributes: database.body.objectDictionary))
    }

    static let clouds = ["aws-irl": cloud("aws-irl", api: .aws), "lab": cloud("lab", api: .openstack)]

    static func cloud(_ name: String, api: Cloud.API) -> Cloud {
        Cloud(
            name: name, vendor: name, api: api, jurisdiction: ["EU"], region: "eu-west-1", zones: [], offers: .init(kubernetes: true, vm: true),
            capacity: .init(vcpu: 8, memoryGiB: 32, storageGiB: 100), pricing: .init(currency: "EUR"), latencyMs: [:], endpoints: .init(),
            location: SourceLocation(file: "\(name).yaml", line: 1, column: 1)
        )
    }

    static func plan(_ desired: [DesiredResource], state: State?, _ catalog: Catalog) async throws -> DeploymentPlan {
        let request = PlanMaker.Request(
            operation: .apply, application: desired[0].body.value(at: ["metadata", "labels", "app.kubernetes.io/part-of"])?.stringValue ?? "",
            desired: desired, state: state, refresh: true, inputDigest: "sha256:0"
        )
        return try await PlanMaker.plan(request, clouds: clouds, catalog: catalog)
    }

    /// The slice or policy as rendering writes it for a dependent in cluster `lab`: empty, or open to any address on
    /// the port, naming `server` in its annotation.
    static func follower(_ kind: ResourceKind, of server: DesiredResource) -> DesiredResource {
        let content: [(String, JSONValue)] = kind == .endpointSlice
            ? [("addressType", .string("IPv4")), ("endpoints", .array([]))]
            : [("spec", .object([("egress", .array([.object([("ports", .array([.object([("protocol", .string("TCP")), ("port", .int(5432))])]))])]))]))]
        let annotations: JSONValue = .object([(ResourceBody.endpointSourcesAnnotation, .string(server.address.rawValue))])
        let body: JSONValue = .object([
            ("apiVersion", .string(kind == .endpointSlice ? "discovery.k8s.io/v1" : "networking.k8s.io/v1")), ("kind", .string(kind.rawValue)),
            ("metadata", .object([("name", .string("db")), ("namespace", .string("shop")), ("annotations", annotations)])),
        ] + content)
        return DesiredResource(
            address: ResourceAddress("kubernetes.lab.\(kind.rawValue).shop.db"), provider: "kubernetes", cloud: "lab", type: kind, body: body,
            dependencies: [server.address]
        )
    }
}

/// The AWS provider for `aws-irl`, and for the cluster `lab` a store of the objects written.
struct Catalog: ProviderCatalog {
    let aws: AWSResourceProvider
    let cluster: ClusterObjects

    func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        name == "aws" ? aws : cluster
    }
}

/// A cluster's objects by address: what the engine wrote into it, read back as written.
final class ClusterObjects: ResourceProvider {
    let name: ProviderName = "kubernetes"
    let cloud = "lab"
    let objects = Mutex<[ResourceAddress: JSONValue]>([:])

    func refresh(application: String, desired: [DesiredResource], recorded: [ResourceState]) async throws(ProviderError) -> [ObservedResource] {
        objects.withLock { $0 }.map { ObservedResource(address: $0.key, providerID: $0.key.rawValue, attributes: $0.value) }
    }

    func replacementReasons(desired: DesiredResource, current: JSONValue) -> [String] { [] }

    func create(_ resource: DesiredResource) async throws(ProviderError) -> ObservedResource {
        objects.withLock { $0[resource.address] = resource.body }
        return ObservedResource(address: resource.address, providerID: resource.address.rawValue, attributes: resource.body)
    }

    func update(_ resource: DesiredResource, recorded: ResourceState) async throws(ProviderError) -> ObservedResource {
        try await create(resource)
    }

    func delete(_ resource: ResourceState) async throws(ProviderError) {
        _ = objects.withLock { $0.removeValue(forKey: resource.address) }
    }
}
