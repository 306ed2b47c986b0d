public import MCloudCore

/// One thing mcloud wants to exist: a Kubernetes object or an infrastructure resource, with the addresses of what
/// must exist before it. `body` is the whole declaration the provider applies.
public struct DesiredResource: Sendable, Hashable {
    /// Stable across runs: `kubernetes.vk-msk.apps/v1.Deployment.retail-bank-ru.payments-api`.
    public var address: String
    /// Who creates it: `kubernetes`, `openstack`, `aws`, `cdn`.
    public var provider: String
    public var cloud: String
    /// The kind: `Deployment`, `DatabaseServer`, `BackupBucket`.
    public var type: String
    public var body: JSONValue
    /// Addresses that must be created before this resource and deleted after it, sorted.
    public var dependencies: [String]

    public init(address: String, provider: String, cloud: String, type: String, body: JSONValue, dependencies: [String]) {
        self.address = address
        self.provider = provider
        self.cloud = cloud
        self.type = type
        self.body = body
        self.dependencies = dependencies
    }
}
