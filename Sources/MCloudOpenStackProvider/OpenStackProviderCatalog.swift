import Foundation
public import MCloudCore
public import MCloudProvider
import MCloudAWS
public import MCloudHTTP
import MCloudOpenStack

/// OpenStack providers for the clouds whose catalog entry names an `endpoints.openstack.cloud`: that cloud of
/// clouds.yaml (found as `CloudsYAML` finds it: `OS_CLIENT_CONFIG_FILE`, `~/.config/openstack/clouds.yaml`,
/// `/etc/openstack/clouds.yaml`; `./clouds.yaml` only when the operator allows it). Backup buckets go to
/// `endpoints.objectStorage.url` with the AWS credential chain, using the profile named after the catalog cloud
/// when one exists; a database VM's keys for its DR bucket come only from the backup profile the catalog names for
/// the bucket's cloud (`BackupUpload`), never from this chain. Only the catalog entry is checked here; files are read
/// on first use.
public final class OpenStackProviderCatalog: ProviderCatalog {
    let environment: [String: String]
    let limits: HTTPLimits

    public init(environment: [String: String], limits: HTTPLimits = HTTPLimits()) {
        self.environment = environment
        self.limits = limits
    }

    public func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        guard let openstackCloud = cloud.endpoints.openstackCloud else {
            throw ProviderError(.unavailable, "cloud \(cloud.name) has no endpoints.openstack.cloud in the catalog")
        }
        let environment = environment
        let limits = limits
        return OpenStackResourceProvider(
            cloud: cloud.name, environment: environment,
            connect: { () throws(OpenStackError) -> OpenStackSession in
                try OpenStackSession(cloud: try CloudsYAML.load(cloud: openstackCloud, environment: environment), retryPolicy: limits.retry, timeouts: limits.timeouts)
            },
            objectStorage: { () throws(AWSError) -> S3Client in try Self.objectStorage(for: cloud, environment: environment, limits: limits) },
            encryptedVolumeType: cloud.vmEncryptedVolumeType
        )
    }

    /// The S3 client for a cloud's object storage. Region: `AWS_REGION`, `AWS_DEFAULT_REGION` or the profile's,
    /// else the catalog cloud's region.
    static func objectStorage(for cloud: Cloud, environment: [String: String], limits: HTTPLimits) throws(AWSError) -> S3Client {
        guard let url = cloud.endpoints.objectStorageURL else {
            throw .configuration("cloud \(cloud.name) has no endpoints.objectStorage.url in the catalog, so it has nowhere to keep backup buckets")
        }
        var settings = environment
        settings["AWS_ENDPOINT_URL_S3"] = url
        if AWSConfigurationLoader.hasProfile(cloud.name, environment: environment) { settings["AWS_PROFILE"] = cloud.name }
        let configuration: AWSConfiguration
        do {
            configuration = try AWSConfigurationLoader.load(environment: settings)
        } catch {
            settings["AWS_REGION"] = cloud.region
            configuration = try AWSConfigurationLoader.load(environment: settings)
        }
        return S3Client(client: AWSClient(configuration: configuration, transport: try AWSTransport.curl(environment: settings, timeouts: limits.timeouts), retryPolicy: limits.retry))
    }

}
