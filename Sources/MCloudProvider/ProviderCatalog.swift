public import MCloudCore

/// Makes the provider for each cloud that resources need, or says why it cannot.
public protocol ProviderCatalog: Sendable {
    /// The provider named `name` for `cloud`; `.unavailable` when it is not built in or the cloud's catalog entry
    /// names no endpoint for it. Only the configuration is checked here: a provider connects when first used, so a
    /// plan that reads nothing from a cloud needs no credentials for it.
    func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider
}
