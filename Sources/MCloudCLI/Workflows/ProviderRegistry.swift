import MCloudAWSProvider
import MCloudCDNProvider
import MCloudCore
import MCloudHTTP
import MCloudKubernetesProvider
import MCloudOpenStackProvider
import MCloudProvider

/// The providers this mcloud has, each configured from the cloud's catalog `endpoints` and the standard credential
/// files of its platform. One catalog per provider name; a name without one is not built in. Every request of every
/// provider keeps to the limits the environment sets (`HTTPLimits`); a bad setting fails the first provider asked for.
final class ProviderRegistry: ProviderCatalog {
    private let catalogs: [ProviderName: any ProviderCatalog]
    private let invalidLimits: HTTPLimits.Invalid?

    init(environment: [String: String]) {
        var limits = HTTPLimits()
        do throws(HTTPLimits.Invalid) {
            limits = try HTTPLimits(environment: environment)
            invalidLimits = nil
        } catch {
            invalidLimits = error
        }
        catalogs = [
            .kubernetes: KubernetesProviderCatalog(environment: environment, limits: limits),
            .aws: AWSProviderCatalog(environment: environment, limits: limits),
            .cdn: CDNProviderCatalog(environment: environment, limits: limits),
            .openstack: OpenStackProviderCatalog(environment: environment, limits: limits),
        ]
    }

    func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        if let invalidLimits { throw ProviderError(.unavailable, invalidLimits.message) }
        guard let catalog = catalogs[name] else {
            throw ProviderError(.unavailable, "the \(name) provider (cloud \(cloud.name)) is not built into this mcloud yet")
        }
        return try catalog.provider(named: name, for: cloud)
    }
}
