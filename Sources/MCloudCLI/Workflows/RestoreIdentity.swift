import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider

/// The temporary IAM user a drill gives its scratch server when the cell's DR leg is on AWS (docs/security.md, H2):
/// a BackupIdentity in the leg's cloud under `/mcloud/restore/`, labelled as the leg (so one a killed drill leaves
/// is an orphan the next plan deletes), that may read the recovery point's folder and write the server's restore
/// report, and nothing else. The provider making the server mints its key into the user data, as for a backup user.
struct RestoreIdentity {
    let resource: DesiredResource
    /// What the restoring server's `spec.restore` names, so its provider makes a key of this user.
    let identity: BucketIdentity

    /// IAM's longest user name.
    static let maximumNameLength = 64

    /// Nil for a leg outside AWS: its restoring VM reads with the leg's cloud's backup profile instead.
    init?(leg: ResourceState, cloud: Cloud, point: RecoveryPoint, server: String, stamp: String) {
        guard leg.provider == .aws else { return nil }
        let name = String("\(ResourceBody(leg.attributes).name).restore-\(stamp)".suffix(Self.maximumNameLength))
        let address = ResourceAddress(provider: leg.provider, cloud: leg.cloud, kind: .backupIdentity, name: name)
        let labels = leg.attributes["metadata"]?["labels"] ?? .object([])
        let folder = point.object.split(separator: "/", omittingEmptySubsequences: false).dropLast().map { $0 + "/" }.joined()
        let metadata: JSONValue = .object([
            ("name", .string(name)), ("address", .string(address.rawValue)), ("cloud", .string(leg.cloud)), ("provider", .string(leg.provider.rawValue)),
            ("labels", labels),
        ])
        let spec: [(String, JSONValue)] = [
            ("userName", .string(name)), ("bucketName", .string(point.location.bucket)), ("prefix", .string(folder)), ("access", .string("restore")),
            ("reportKey", .string(DatabaseUserData.restoreReportKey(server: server))),
        ]
        let body: JSONValue = .object([
            ("apiVersion", .string(ResourceBody.infrastructureAPIVersion)), ("kind", .string(ResourceKind.backupIdentity.rawValue)), ("metadata", metadata),
            ("spec", .object(spec)),
        ])
        resource = DesiredResource(address: address, provider: leg.provider, cloud: leg.cloud, type: .backupIdentity, body: body, dependencies: [])
        identity = BucketIdentity(address: address.rawValue, user: name, deployProfile: cloud.endpoints.awsProfile)
    }
}
