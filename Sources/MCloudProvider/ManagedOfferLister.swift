/// What a cloud's API says it sells managed, for `mcloud catalog offers` to set beside the catalog's `offers.dbaas`.
public struct ManagedOffers: Sendable, Hashable {
    /// Where the answer came from, as a reader checks it by hand (`RDS DescribeDBEngineVersions`).
    public var source: String
    /// The releases sold now, by mcloud engine name (`postgresql`, `mysql`), as the API names them (`16.4`, `8.0.39`);
    /// an engine the API does not sell is absent.
    public var versions: [String: [String]]

    public init(source: String, versions: [String: [String]]) {
        self.source = source
        self.versions = versions
    }
}

/// A provider that can ask its cloud's API which managed database engines and versions it sells.
public protocol ManagedOfferLister: Sendable {
    func managedOffers() async throws(ProviderError) -> ManagedOffers
}
