/// Who to be, where, and which endpoints to talk to: what `AWSConfigurationLoader` reads the way the AWS CLI does.
public struct AWSConfiguration: Sendable, Hashable, CustomStringConvertible {
    public var credentials: AWSCredentials
    public var region: String
    /// `AWS_ENDPOINT_URL` or the profile's `endpoint_url`: replaces every service's endpoint.
    public var endpointURL: String?
    /// `AWS_ENDPOINT_URL_<SERVICE>`, keyed by `AWSService.environmentKey`; wins over `endpointURL`.
    public var serviceEndpoints: [String: String]
    /// The profile the settings came from, when one was read.
    public var profile: String?

    public init(credentials: AWSCredentials, region: String, endpointURL: String? = nil, serviceEndpoints: [String: String] = [:], profile: String? = nil) {
        self.credentials = credentials
        self.region = region
        self.endpointURL = endpointURL
        self.serviceEndpoints = serviceEndpoints
        self.profile = profile
    }

    /// The base URL for a service (no trailing slash): a configured override, else the public endpoint.
    public func endpoint(for service: AWSService, region: String? = nil) -> String {
        let chosen = serviceEndpoints[service.environmentKey] ?? endpointURL ?? service.defaultEndpoint(region: region ?? self.region)
        return chosen.hasSuffix("/") ? String(chosen.dropLast()) : chosen
    }

    /// True when a service is pointed somewhere other than AWS (an emulator or an S3-compatible store).
    public func isCustomEndpoint(_ service: AWSService) -> Bool {
        serviceEndpoints[service.environmentKey] != nil || endpointURL != nil
    }

    public var description: String {
        "AWSConfiguration(region: \(region), credentials: \(credentials)\(profile.map { ", profile: \($0)" } ?? "")\(endpointURL.map { ", endpoint: \($0)" } ?? ""))"
    }
}
