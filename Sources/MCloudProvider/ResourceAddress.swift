/// A resource's name across runs, unique in a deployment and known before anything exists, so bodies refer to
/// each other by it: `<provider>.<cloud>.` then what the provider needs (docs/engine.md). The address formats of
/// the built-in providers are written here once: rendering makes them, providers make them for what they find.
public struct ResourceAddress: TypedName, ExpressibleByStringInterpolation {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringInterpolation: DefaultStringInterpolation) {
        rawValue = String(stringInterpolation: stringInterpolation)
    }

    /// An infrastructure resource: `openstack.sel-msk.ManagedDatabase.retail-bank-ru.accounts-db`.
    public init(provider: ProviderName, cloud: String, kind: ResourceKind, name: String) {
        rawValue = "\(provider.rawValue).\(cloud).\(kind.rawValue).\(name)"
    }

    /// A Kubernetes object: `kubernetes.vk-msk.apps/v1.Deployment.retail-bank-ru.payments-api`; a Namespace has no
    /// namespace part: `kubernetes.vk-msk.v1.Namespace.retail-bank-ru`.
    public static func kubernetes(cloud: String, apiVersion: String, kind: ResourceKind, namespace: String, name: String) -> ResourceAddress {
        let tail = kind == .namespace ? name : "\(namespace).\(name)"
        return ResourceAddress("\(ProviderName.kubernetes.rawValue).\(cloud).\(apiVersion).\(kind.rawValue).\(tail)")
    }

    private var parts: [Substring] { rawValue.split(separator: ".", omittingEmptySubsequences: false) }

    /// The first part.
    public var provider: ProviderName { ProviderName(String(parts.first ?? "")) }

    /// The second part.
    public var cloud: String { parts.dropFirst().first.map(String.init) ?? "" }

    /// For a Kubernetes object the first part that starts with a capital letter (an API group such as
    /// `networking.k8s.io` holds dots, so the kind has no fixed place); for any other provider the third part.
    public var kind: ResourceKind {
        if provider == .kubernetes { return ResourceKind(parts.first { $0.first?.isUppercase == true }.map(String.init) ?? "") }
        return ResourceKind(parts.count > 2 ? String(parts[2]) : "")
    }

    public func hasPrefix(_ prefix: String) -> Bool { rawValue.hasPrefix(prefix) }
}
