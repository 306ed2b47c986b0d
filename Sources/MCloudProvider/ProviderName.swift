/// Which provider creates and manages a resource: the first part of its address, and the key under which a
/// `ProviderCatalog` finds the provider.
public struct ProviderName: TypedName {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The providers built into mcloud: what rendering assigns resources to.
    public static let kubernetes: ProviderName = "kubernetes"
    public static let openstack: ProviderName = "openstack"
    public static let aws: ProviderName = "aws"
    public static let cdn: ProviderName = "cdn"
}
