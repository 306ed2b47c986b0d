import Foundation
import MCloudCore
@testable import MCloudEngine
import MCloudProvider
import Synchronization

/// Small builders for engine tests.
enum EngineFixtures {
    static func body(_ kind: String, _ name: String, replicas: Int? = nil, selector: String = "web", namespace: String? = "shop") -> JSONValue {
        var metadata: [(String, JSONValue)] = [("name", .string(name))]
        if let namespace { metadata.append(("namespace", .string(namespace))) }
        var fields: [(String, JSONValue)] = [("apiVersion", "v1"), ("kind", .string(kind)), ("metadata", .object(metadata))]
        if let replicas {
            fields.append(("spec", .object([("replicas", .int(replicas)), ("selector", .object([("app", .string(selector))]))])))
        }
        return .object(fields)
    }

    static func desired(
        _ address: ResourceAddress, _ body: JSONValue, dependencies: [ResourceAddress] = [], type: ResourceKind = "Deployment", cloud: String = "lab"
    ) -> DesiredResource {
        DesiredResource(address: address, provider: "memory", cloud: cloud, type: type, body: body, dependencies: dependencies)
    }

    static func recorded(_ address: ResourceAddress, _ body: JSONValue, dependencies: [ResourceAddress] = []) -> ResourceState {
        ResourceState(
            address: address, provider: "memory", cloud: "lab", providerID: "id-\(address)",
            attributes: Dictionary(body.objectPairs, uniquingKeysWith: { first, _ in first }), dependencies: dependencies
        )
    }

    static let lab = cloud("lab")

    static func cloud(_ name: String) -> Cloud {
        Cloud(
        name: name, vendor: "lab", api: .openstack, jurisdiction: ["EU"], region: "lab-1", zones: [], offers: .init(kubernetes: true),
        capacity: .init(vcpu: 8, memoryGiB: 32, storageGiB: 100), pricing: .init(currency: "EUR"), latencyMs: [:], endpoints: .init(),
        location: SourceLocation(file: "lab.yaml", line: 1, column: 1)
        )
    }

    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "mcloud-engine-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// The provider protocol over a dictionary, for the engine's own logic (order, parallelism, failure handling);
/// the real providers are tested against their real servers.
final class MemoryProvider: ResourceProvider, ProviderCatalog {
    struct Log {
        var events: [String] = []
        var running = 0
        var maxRunning = 0
    }

    let name: ProviderName = "memory"
    let cloud = "lab"
    let objects = Mutex<[ResourceAddress: JSONValue]>([:])
    let log = Mutex(Log())
    /// Addresses whose create or update fails with this message.
    let failing: [ResourceAddress: String]
    /// Addresses whose create answers without an ID, as a cloud's unreadable answer would.
    let withoutID: Set<ResourceAddress>
    let delay: Duration
    /// Addresses whose body the provider says it cannot deliver, with why.
    let undeliverable: [ResourceAddress: String]
    /// The addresses it reports (`status.addresses`) for a resource, as a cloud reports a server's.
    let reporting = Mutex<[ResourceAddress: [String]]>([:])

    init(
        failing: [ResourceAddress: String] = [:], withoutID: Set<ResourceAddress> = [], delay: Duration = .milliseconds(2),
        undeliverable: [ResourceAddress: String] = [:]
    ) {
        self.undeliverable = undeliverable
        self.failing = failing
        self.withoutID = withoutID
        self.delay = delay
    }

    func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        guard name == "memory" else { throw ProviderError(.unavailable, "the \(name) provider is not built into this test") }
        return self
    }

    func refresh(application: String, desired: [DesiredResource], recorded: [ResourceState]) async throws(ProviderError) -> [ObservedResource] {
        objects.withLock { $0 }.sorted { $0.key < $1.key }.map { ObservedResource(address: $0.key, providerID: "id-\($0.key)", attributes: reported($0.value, $0.key)) }
    }

    private func reported(_ body: JSONValue, _ address: ResourceAddress) -> JSONValue {
        ResourceBody(body).reportingAddresses(reporting.withLock { $0[address] ?? [] }).document
    }

    func problems(desired: DesiredResource) -> [String] {
        undeliverable[desired.address].map { [$0] } ?? []
    }

    func replacementReasons(desired: DesiredResource, current: JSONValue) -> [String] {
        guard let wanted = desired.body.value(at: ["spec", "selector"]), let now = current.value(at: ["spec", "selector"]),
            !FieldDiff.same(wanted, now)
        else { return [] }
        return ["spec.selector cannot change on a Deployment"]
    }

    func create(_ resource: DesiredResource) async throws(ProviderError) -> ObservedResource {
        try await work("create", resource.address)
        objects.withLock { $0[resource.address] = resource.body }
        return ObservedResource(
            address: resource.address, providerID: withoutID.contains(resource.address) ? "" : "id-\(resource.address)",
            attributes: reported(resource.body, resource.address)
        )
    }

    func update(_ resource: DesiredResource, recorded: ResourceState) async throws(ProviderError) -> ObservedResource {
        try await work("update", resource.address)
        objects.withLock { $0[resource.address] = resource.body }
        return ObservedResource(address: resource.address, providerID: recorded.providerID, attributes: reported(resource.body, resource.address))
    }

    func delete(_ resource: ResourceState) async throws(ProviderError) {
        try await work("delete", resource.address)
        _ = objects.withLock { $0.removeValue(forKey: resource.address) }
    }

    private func work(_ operation: String, _ address: ResourceAddress) async throws(ProviderError) {
        log.withLock {
            $0.events.append("start \(operation) \(address)")
            $0.running += 1
            $0.maxRunning = max($0.maxRunning, $0.running)
        }
        try? await Task.sleep(for: delay)
        log.withLock {
            $0.running -= 1
            $0.events.append("end \(operation) \(address)")
        }
        if let message = failing[address] { throw ProviderError(.failed, message) }
    }

    var events: [String] { log.withLock { $0.events } }
    var maxRunning: Int { log.withLock { $0.maxRunning } }
}

// Test documents read like the JSON they stand for.
extension JSONValue: ExpressibleByStringLiteral {
    init(stringLiteral value: String) { self = .string(value) }
}
