import MCloudAWSProvider
import MCloudCDNProvider
import MCloudCore
import MCloudKubernetesProvider
import MCloudOpenStackProvider
import MCloudProvider

/// The providers this mcloud has, each configured from the cloud's catalog `endpoints` and the standard credential
/// files of its platform. One catalog per provider name; a name without one is not built in.
final class ProviderRegistry: ProviderCatalog {
    private let catalogs: [ProviderName: any ProviderCatalog]

    init(environment: [String: String]) {
        catalogs = [
            .kubernetes: KubernetesProviderCatalog(environment: environment),
            .aws: AWSProviderCatalog(environment: environment),
            .cdn: CDNProviderCatalog(environment: environment),
            .openstack: OpenStackProviderCatalog(environment: environment),
        ]
    }

    func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        guard let catalog = catalogs[name] else {
            throw ProviderError(.unavailable, "the \(name) provider (cloud \(cloud.name)) is not built into this mcloud yet")
        }
        return try catalog.provider(named: name, for: cloud)
    }
}
