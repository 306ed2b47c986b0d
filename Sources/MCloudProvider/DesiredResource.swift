public import MCloudCore

/// One thing mcloud wants to exist: a Kubernetes object or an infrastructure resource, with the addresses of what
/// must exist before it. `body` is the whole declaration the provider applies.
public struct DesiredResource: Sendable, Hashable {
    /// Stable across runs: `kubernetes.vk-msk.apps/v1.Deployment.retail-bank-ru.payments-api`.
    public var address: ResourceAddress
    /// Who creates it: `kubernetes`, `openstack`, `aws`, `cdn`.
    public var provider: ProviderName
    public var cloud: String
    /// The kind: `Deployment`, `DatabaseServer`, `BackupBucket`.
    public var type: ResourceKind
    public var body: JSONValue
    /// Addresses that must be created before this resource and deleted after it, sorted.
    public var dependencies: [ResourceAddress]

    public init(
        address: ResourceAddress, provider: ProviderName, cloud: String, type: ResourceKind, body: JSONValue, dependencies: [ResourceAddress]
    ) {
        self.address = address
        self.provider = provider
        self.cloud = cloud
        self.type = type
        self.body = body
        self.dependencies = dependencies
    }
}
