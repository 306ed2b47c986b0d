public import MCloudCore

/// One resource mcloud created and owns, as the state remembers it.
public struct ResourceState: Sendable, Hashable {
    /// Stable across runs, such as `kubernetes.vk-msk.apps/v1.Deployment.retail-bank-ru.payments-api`.
    public var address: ResourceAddress
    /// The provider that manages it, such as `kubernetes`.
    public var provider: ProviderName
    /// The cloud it lives in, such as `vk-msk`.
    public var cloud: String
    /// The provider's own ID for it (a Kubernetes UID, an OpenStack server ID).
    public var providerID: String
    /// The attributes mcloud set, with object keys sorted at every depth and secrets redacted.
    public private(set) var attributes: JSONValue
    /// Addresses this resource needed when it was created, sorted: a resource no longer in the manifests is deleted
    /// before what it depends on, so the order survives the manifests that declared it.
    public var dependencies: [ResourceAddress]

    /// Records a resource; `attributes` are redacted (see `SecretRedaction`) and put in a stable key order here, so
    /// no secret reaches the state whatever the provider passes.
    public init(
        address: ResourceAddress, provider: ProviderName, cloud: String, providerID: String, attributes: [String: JSONValue],
        dependencies: [ResourceAddress] = []
    ) {
        self.address = address
        self.dependencies = dependencies.sorted()
        self.provider = provider
        self.cloud = cloud
        self.providerID = providerID
        // The top level sorted here, so attributes sorted below it (all of a state read back) are kept as they are.
        let sorted = attributes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        self.attributes = Self.sortingKeys(SecretRedaction.redact(.object(sorted)))
    }

    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("address", .string(address.rawValue)),
            ("provider", .string(provider.rawValue)),
            ("cloud", .string(cloud)),
            ("provider_id", .string(providerID)),
            ("attributes", attributes),
        ]
        if !dependencies.isEmpty { fields.append(("dependencies", .array(dependencies.map { .string($0.rawValue) }))) }
        return .object(fields)
    }

    static func parse(_ value: JSONValue, path: String) throws(FieldReader.Failure) -> ResourceState {
        let reader = try FieldReader(value, path: path)
        try reader.allowOnly(["address", "provider", "cloud", "provider_id", "attributes", "dependencies"])
        let attributes = try reader.object("attributes")
        var unique: [String: JSONValue] = [:]
        for (name, value) in attributes {
            guard unique.updateValue(value, forKey: name) == nil else { throw reader.failure("attributes." + name, "given twice") }
        }
        var dependencies: [ResourceAddress] = []
        // Left out when empty.
        let listed = reader.pairs.contains { $0.0 == "dependencies" } ? try reader.array("dependencies") : []
        for (index, item) in listed.enumerated() {
            guard case .string(let address) = item, !address.isEmpty else {
                throw reader.failure("dependencies[\(index)]", "expected an address, found \(FieldReader.kind(of: item))")
            }
            dependencies.append(ResourceAddress(address))
        }
        return ResourceState(
            address: ResourceAddress(try reader.string("address")), provider: ProviderName(try reader.string("provider")), cloud: try reader.string("cloud"),
            providerID: try reader.string("provider_id"), attributes: unique, dependencies: dependencies
        )
    }

    /// The same value with every object's keys in sorted order, so equal attributes always serialize alike; `value`
    /// itself, not a copy, when its keys are in order already (a state's attributes, read back, were sorted when
    /// recorded).
    static func sortingKeys(_ value: JSONValue) -> JSONValue {
        hasSortedKeys(value) ? value : sortedKeys(value)
    }

    private static func hasSortedKeys(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let pairs): return zip(pairs, pairs.dropFirst()).allSatisfy { !($1.0 < $0.0) } && pairs.allSatisfy { hasSortedKeys($0.1) }
        case .array(let items): return items.allSatisfy(hasSortedKeys)
        default: return true
        }
    }

    private static func sortedKeys(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let pairs): return .object(pairs.sorted { $0.0 < $1.0 }.map { ($0.0, sortedKeys($0.1)) })
        case .array(let items): return .array(items.map(sortedKeys))
        default: return value
        }
    }
}
