import MCloudProvider

/// A resource outside Kubernetes that the placement implies, in the declarative format of docs/gitops.md that the
/// apply engine reads: `infrastructure.mcloud.io/v1`, a kind, and a stable address-like name.
public struct InfrastructureResource: Sendable {
    public static let apiVersion = ResourceBody.infrastructureAPIVersion

    public let kind: String
    /// `retail-bank-ru.accounts-db`, `retail-bank-ru.accounts-db.0`: the scope (namespace), the workload, a part.
    public let name: String
    public let cloud: String
    /// Who creates it: the cloud's IaaS adapter (`openstack`, `aws`), or `cdn`.
    public let provider: String
    public let body: ObjectNode

    init(kind: ResourceKind, name: String, cloud: String, provider: ProviderName, labels: ObjectNode, spec: [(String, ObjectNode)]) {
        self.kind = kind.rawValue
        self.name = name
        self.cloud = cloud
        self.provider = provider.rawValue
        body = [
            "apiVersion": .string(Self.apiVersion),
            "kind": .string(kind.rawValue),
            "metadata": [
                "name": .string(name),
                "address": .string(Self.address(provider: provider, cloud: cloud, kind: kind, name: name)),
                "cloud": .string(cloud),
                "provider": .string(provider.rawValue),
                "labels": labels,
            ],
            "spec": .map(spec),
        ]
    }

    /// `openstack.sel-msk.ManagedDatabase.retail-bank-ru.accounts-db`: unique across the tree, and what resources
    /// use to refer to each other, so they can be written before anything exists.
    public var address: String { Self.address(provider: ProviderName(provider), cloud: cloud, kind: ResourceKind(kind), name: name) }

    static func address(provider: ProviderName, cloud: String, kind: ResourceKind, name: String) -> String {
        ResourceAddress(provider: provider, cloud: cloud, kind: kind, name: name).rawValue
    }

    /// The path under the cloud's folder: `retail-bank-ru.accounts-db.manageddatabase.yaml`.
    public var path: String { "\(name).\(kind.lowercased()).yaml" }
}
