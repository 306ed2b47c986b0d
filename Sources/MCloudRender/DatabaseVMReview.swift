public import MCloudCore

/// What `plan` says about the database VMs a placement makes, before anything is applied (docs/security.md, H2):
/// a VM whose DR leg's bucket is in a cloud that names no backup identity (`endpoints.objectStorage.backupProfile`)
/// is an error, since its backup job could only get mcloud's own keys, and the apply would stop at that VM; a leg
/// whose keys cannot be narrowed to its own bucket (OpenStack's) is a warning on its cell, naming the leg, the cloud
/// and why; a leg on AWS is neither, since mcloud makes it a user of its own (`BackupIdentity`). So is personal data on the volumes of an OpenStack cloud that names no encrypted volume type (M6).
public struct DatabaseVMReview: Sendable {
    public struct Warning: Sendable, Hashable {
        /// As the plan names cells: `sessions-redis@eu`.
        public var cell: String
        public var message: String
    }

    public var errors: [String] = []
    public var warnings: [Warning] = []

    public init(model: Model, placement: Placement) {
        let topology = Topology(model: model, placement: placement)
        for index in topology.databases.indices {
            guard let infrastructure = DatabaseInfrastructure(index, in: topology), !infrastructure.managed else { continue }
            let cell = infrastructure.cell.cell.description
            if let warning = Self.unencrypted(infrastructure.cell.database, on: infrastructure.cloud) {
                warnings.append(Warning(cell: cell, message: warning))
            }
            guard infrastructure.cell.database.backup != nil, let bucket = infrastructure.disasterBucket else { continue }
            let cloud = bucket.cloud
            // A price list, which no plan applies: the plan says the cloud has no endpoints instead.
            guard cloud.endpoints != Cloud.Endpoints() else { continue }
            // On AWS mcloud makes the leg's own user, write-only on its prefix, and mints its key for the VM.
            guard infrastructure.backupIdentity == nil else { continue }
            guard let profile = cloud.endpoints.objectStorageBackupProfile else {
                errors.append(
                    "\(cell): its DR leg's bucket \(bucket.name) in \(cloud.name) has no backup identity for the VM's backup job: set endpoints.objectStorage.backupProfile in \(cloud.name)'s catalog entry (\(cloud.location)) to a profile of the operator's AWS files whose keys reach its backup buckets only; a VM never gets mcloud's own keys"
                )
                continue
            }
            warnings.append(Warning(cell: cell, message: "DR leg \(bucket.name) in \(cloud.name): \(Self.unscoped(cloud, profile: profile))"))
        }
    }

    /// The data class whose volumes must be encrypted where the cloud can (docs/security.md, M6).
    static let personal = "personal"

    /// Why a VM's volumes for `database` in `cloud` may be stored unencrypted; nil when they are not, or hold no
    /// personal data. AWS encrypts every EBS volume mcloud makes; an OpenStack cloud only with the catalog's type.
    static func unencrypted(_ database: Database, on cloud: Cloud) -> String? {
        guard cloud.api == .openstack, cloud.vmEncryptedVolumeType == nil, database.data.contains(personal) else { return nil }
        return "its personal data lies on volumes of \(cloud.name)'s default Cinder type, encrypted only if that type is: \(cloud.name) names no spec.vm.encryptedVolumeType in its catalog entry (\(cloud.location))"
    }

    /// Why the keys of `profile` reach more than the leg's own bucket in `cloud`, an OpenStack cloud (on AWS mcloud
    /// makes a scoped user instead).
    static func unscoped(_ cloud: Cloud, profile: String) -> String {
        "the VM gets the keys of profile \(profile) unscoped: \(cloud.name)'s S3-compatible storage gives EC2-style keys the rights of their whole project, and mcloud cannot narrow them to one bucket there, so whoever reads them on the VM reaches every bucket they reach"
    }
}
