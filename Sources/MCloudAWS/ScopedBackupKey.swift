public import MCloudCore
public import MCloudHTTP

/// A fresh access key of a DR leg's own IAM user (`BucketIdentity`), made when a database VM is created and put
/// into its user data only (docs/security.md, H2). It is made with the bucket cloud's deploying credentials, the
/// ones its BackupBucket is applied with; the user's older keys are deleted first, since IAM allows two a user and a
/// replaced VM's key must stop working.
public enum ScopedBackupKey {
    /// The deploying configuration of the cloud `identity` belongs to, as `AWSProviderCatalog` loads it: mcloud's
    /// environment, the cloud's `endpoints.aws.profile` unless `AWS_ACCESS_KEY_ID` is set, and the bucket's region.
    public static func deployingEnvironment(profile: String?, region: String, environment: [String: String]) -> [String: String] {
        var settings = environment
        settings["AWS_REGION"] = region.isEmpty ? "us-east-1" : region
        if settings["AWS_ACCESS_KEY_ID"] == nil, let profile { settings["AWS_PROFILE"] = profile }
        return settings
    }

    /// The upload settings for `target` with a new key of its identity's user. The error names the user and the
    /// bucket, never a key.
    public static func mint(
        _ target: BucketLocation, environment: [String: String], transport: any HTTPTransport = CurlTransport(), retryPolicy: RetryPolicy = RetryPolicy()
    ) async throws(AWSError) -> BackupUpload {
        guard let identity = target.identity else {
            throw .configuration("the backup bucket \(target.bucket) in cloud \(target.cloud) has no identity of its own to make a key for")
        }
        let configuration = try AWSConfigurationLoader.load(
            environment: deployingEnvironment(profile: identity.deployProfile, region: target.region, environment: environment)
        )
        let iam = IAMClient(client: AWSClient(configuration: configuration, transport: transport, retryPolicy: retryPolicy))
        for key in try await iam.listAccessKeys(userName: identity.user) {
            try await iam.deleteAccessKey(userName: identity.user, id: key.id)
        }
        let key = try await iam.createAccessKey(userName: identity.user)
        return try BackupUpload.checked(BackupUpload(target: target, credentials: key.credentials))
    }
}
