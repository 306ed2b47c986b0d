/// Which provider creates and manages a resource: the first part of its address, and the key under which a
/// `ProviderCatalog` finds the provider.
public struct ProviderName: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        rawValue = value
    }

    public var description: String { rawValue }

    public static func < (lhs: ProviderName, rhs: ProviderName) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The providers built into mcloud: what rendering assigns resources to.
    public static let kubernetes: ProviderName = "kubernetes"
    public static let openstack: ProviderName = "openstack"
    public static let aws: ProviderName = "aws"
    public static let cdn: ProviderName = "cdn"
}
