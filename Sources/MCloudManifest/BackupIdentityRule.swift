import MCloudCore

/// The catalog check of backup identities (docs/security.md, H2): the profile a cloud names for the keys its backup
/// buckets are reached with from a database VM (`endpoints.objectStorage.backupProfile`) must not be an identity
/// mcloud itself works with, or a VM's user data would hand a process on that VM mcloud's own keys. mcloud deploys
/// an AWS cloud with its `endpoints.aws.profile`, and manages an OpenStack cloud's buckets with the profile named
/// after that cloud (`OpenStackProviderCatalog`).
struct BackupIdentityRule {
    let clouds: [Cloud]

    /// Each cloud whose backup profile is one of mcloud's own identities, with the message for its
    /// `backupProfile`; in catalog order.
    func problems() -> [(cloud: Cloud, message: String)] {
        var deploying: [String: String] = [:]
        for cloud in clouds {
            if let profile = cloud.endpoints.awsProfile, deploying[profile] == nil {
                deploying[profile] = "the profile mcloud deploys \(cloud.name) with (its endpoints.aws.profile)"
            }
            if cloud.api == .openstack, cloud.endpoints.objectStorageURL != nil, deploying[cloud.name] == nil {
                deploying[cloud.name] = "the profile mcloud manages \(cloud.name)'s buckets with (named after the cloud)"
            }
        }
        return clouds.compactMap { cloud in
            guard let profile = cloud.endpoints.objectStorageBackupProfile, let whose = deploying[profile] else { return nil }
            return (cloud, "\(Self.path): \"\(profile)\" is \(whose); a backup identity is a profile of its own, whose keys reach the backup buckets only, since they go into every database VM's user data")
        }
    }

    static let path = "spec.endpoints.objectStorage.backupProfile"
}
