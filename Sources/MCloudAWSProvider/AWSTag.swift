import MCloudAWS
import MCloudCore
import MCloudProvider

/// The tags of mcloud's AWS resources, the keys the provider reads back.
enum AWSTag {
    static let managedBy = ResourceLabels.CloudTag.managedBy
    static let cloud = ResourceLabels.cloud
    static let address = ResourceLabels.CloudTag.address
    static let digest = ResourceLabels.CloudTag.digest
    static let backupAddress = "mcloud.io/backup-address"
    static let backupDigest = "mcloud.io/backup-digest"
    static let backupSchedule = "mcloud.io/backup-schedule-base64"
    static let backupRetention = "mcloud.io/backup-retention-days"
    static let backupBucket = "mcloud.io/backup-bucket"
    static let backupKeys = [backupAddress, backupDigest, backupSchedule, backupRetention, backupBucket]

    /// The tags every AWS resource of mcloud's carries: managed-by, application, cell, cloud, address and the digest
    /// of the body it was last made from.
    static func tags(_ body: JSONValue, address: ResourceAddress, cloud: String) -> [String: String] {
        let read = ResourceBody(body)
        return [
            managedBy: ResourceLabels.manager, ResourceLabels.CloudTag.application: read.application, ResourceLabels.CloudTag.cell: read.cell ?? "",
            Self.cloud: cloud, Self.address: address.rawValue, Self.digest: digest(body),
        ]
    }

    /// SHA-256 of the body's canonical form, so equal bodies digest equal.
    static func digest(_ body: JSONValue) -> String {
        String(AWSNames.hash(ResourceBody(body).canonicalText).prefix(32))
    }
}
