import MCloudAWS
public import MCloudCore
public import MCloudHTTP
public import MCloudProvider

/// AWS providers for clouds whose catalog entry has `endpoints.aws.profile`: credentials from that profile of the
/// shared AWS files (or `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, which win as with the AWS CLI), the cloud's
/// `region`, and `AWS_ENDPOINT_URL(_<SERVICE>)` or the profile's `endpoint_url` for an emulator.
public final class AWSProviderCatalog: ProviderCatalog {
    let environment: [String: String]
    let limits: HTTPLimits

    public init(environment: [String: String], limits: HTTPLimits = HTTPLimits()) {
        self.environment = environment
        self.limits = limits
    }

    public func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        guard let profile = cloud.endpoints.awsProfile else {
            throw ProviderError(.unavailable, "cloud \(cloud.name) has no endpoints.aws.profile in the catalog")
        }
        guard !cloud.region.isEmpty else { throw ProviderError(.unavailable, "cloud \(cloud.name) has no region in the catalog") }
        let environment = ScopedBackupKey.deployingEnvironment(profile: profile, region: cloud.region, environment: environment)
        let settings = AWSResourceProvider.Settings(environment: self.environment, cloud: cloud.name)
        let limits = limits
        return AWSResourceProvider(cloud: cloud.name, settings: settings) { [environment] () throws(ProviderError) -> AWSClient in
            do throws(AWSError) {
                return AWSClient(
                    configuration: try AWSConfigurationLoader.load(environment: environment), transport: try AWSTransport.curl(environment: environment, timeouts: limits.timeouts),
                    retryPolicy: limits.retry
                )
            } catch {
                throw ProviderError(.unavailable, "cloud \(cloud.name) (profile \(profile)): \(error.description)")
            }
        }
    }
}
