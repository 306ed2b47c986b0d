import MCloudCDN
public import MCloudCore
public import MCloudProvider
import MCloudAWS
public import MCloudHTTP

/// `cdn` providers: CloudFront for a cloud with `api: aws` (credentials as the AWS CLI finds them, with the
/// profile `endpoints.aws.profile` names; `AWS_ENDPOINT_URL` for emulators), the G-Core-style API at
/// `endpoints.cdn.url` for the others, with the token in the variable `endpoints.cdn.tokenEnv` names: an API key
/// (`Authorization: APIKey`) for vendor `gcore`, a Keystone token (`X-Auth-Token`) and VK's
/// `originGroups` path for every other vendor. The token goes only where the operator allows (`CDNTokenAllowance`),
/// checked on first use, before the token is read and before any request.
public struct CDNProviderCatalog: ProviderCatalog {
    let environment: [String: String]
    let transport: @Sendable () -> any HTTPTransport
    let limits: HTTPLimits

    /// `transport` is for tests; by default every request keeps to `limits`.
    public init(environment: [String: String], limits: HTTPLimits = HTTPLimits(), transport: (@Sendable () -> any HTTPTransport)? = nil) {
        self.environment = environment
        self.limits = limits
        self.transport = transport ?? { RetryingTransport(CurlTransport(timeouts: limits.timeouts), policy: limits.retry) }
    }

    public func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        let environment = environment
        let transport = transport
        let limits = limits
        if cloud.api == .aws {
            return CDNResourceProvider(cloud: cloud.name) { () throws(ProviderError) -> any CDNService in
                var settings = environment
                if let profile = cloud.endpoints.awsProfile { settings["AWS_PROFILE"] = profile }
                // CloudFront is global: its API lives in us-east-1 whatever the cloud's region.
                settings["AWS_REGION"] = "us-east-1"
                do throws(AWSError) {
                    let configuration = try AWSConfigurationLoader.load(environment: settings)
                    let client = AWSClient(configuration: configuration, transport: try AWSTransport.curl(environment: settings, timeouts: limits.timeouts), retryPolicy: limits.retry)
                    return CloudFrontCDN(client: CloudFrontClient(client: client))
                } catch {
                    throw ProviderError(.unavailable, "cloud \(cloud.name): \(error.description)")
                }
            }
        }
        guard let url = cloud.endpoints.cdnURL, let tokenVariable = cloud.endpoints.cdnTokenEnv else {
            throw ProviderError(.unavailable, "cloud \(cloud.name) has no endpoints.cdn.url and tokenEnv in the catalog")
        }
        return CDNResourceProvider(cloud: cloud.name) { () throws(ProviderError) -> any CDNService in
            // Checked on first use, like the token itself, so that planning a new application needs no allowance.
            if let refusal = CDNTokenAllowance(environment: environment).refusal(tokenEnv: tokenVariable, url: url) {
                throw ProviderError(.unauthorized, "cloud \(cloud.name) (\(cloud.location)): \(refusal)")
            }
            guard let token = environment[tokenVariable], !token.isEmpty else {
                throw ProviderError(.unauthorized, "cloud \(cloud.name): the CDN token variable \(tokenVariable) (endpoints.cdn.tokenEnv) is not set")
            }
            let gcore = cloud.vendor == "gcore"
            return GCoreCDN(
                baseURL: url, credential: gcore ? .apiKey(token) : .keystoneToken(token), originGroupsPath: gcore ? "/origin_groups" : "/originGroups",
                transport: transport(), pollInterval: Self.pollInterval(environment)
            )
        }
    }

    /// Seconds between status reads while a resource deploys: `MCLOUD_CDN_POLL_SECONDS`, else 5.
    static func pollInterval(_ environment: [String: String]) -> Double {
        environment["MCLOUD_CDN_POLL_SECONDS"].flatMap(Double.init) ?? 5
    }
}
