import MCloudCore
import MCloudDatabaseEngines
import MCloudEngine
import MCloudProvider

/// Reads a failover's recovery points from the DR legs: the newest backup the lost server took, through the
/// bucket's own provider, with the bucket's region, S3 endpoint and backup profile from the catalog (as rendering
/// gives a server's `spec.backup`).
struct RecoveryPointReader {
    let clouds: [String: Cloud]
    let registry: any ProviderCatalog

    /// The point of each need that has a leg, with the backup it restores; throws naming the cell when a leg cannot
    /// be read or holds no backup of the lost server.
    func points(_ needs: [RecoveryPoints.Need]) async throws(ProviderError) -> [(point: RecoveryPoints.Point, backup: BackupObject)] {
        var found: [(point: RecoveryPoints.Point, backup: BackupObject)] = []
        for need in needs {
            guard let leg = need.leg else { continue }
            // A leg on AWS gets a restore user of its own (RestoreIdentity); only another needs a backup profile.
            if leg.provider != .aws, let problem = Self.withoutBackupIdentity(leg, cell: need.cell, clouds: clouds, reader: "the new primary") {
                throw ProviderError(.unavailable, problem)
            }
            let backups = try await list(leg, cell: need.cell)
            guard let newest = RecoveryPoints.newest(backups, for: need) else {
                throw ProviderError(.failed, "\(need.cell): its DR leg \(leg.providerID) in \(leg.cloud) holds no backup of \(need.prefix.dropLast()); nothing to restore it from")
            }
            found.append((point(leg: leg, server: need.server, backup: newest), newest))
        }
        return found
    }

    /// Why `reader`, a server made to restore from `leg`, would have no keys to read it with: the leg's cloud names no
    /// backup identity, and a VM never gets mcloud's own keys (docs/security.md, H2). Nil when it names one.
    static func withoutBackupIdentity(_ leg: ResourceState, cell: String, clouds: [String: Cloud], reader: String) -> String? {
        guard let cloud = clouds[leg.cloud], cloud.endpoints.objectStorageBackupProfile == nil else { return nil }
        return "\(cell)'s DR leg \(leg.providerID) in \(leg.cloud) has no backup identity for \(reader) to read it with: set endpoints.objectStorage.backupProfile in \(leg.cloud)'s catalog entry (\(cloud.location))"
    }

    /// The leg's backups whose keys have the backup job's layout (`BackupKey`).
    func list(_ leg: ResourceState, cell: String) async throws(ProviderError) -> [BackupObject] {
        guard let cloud = clouds[leg.cloud] else {
            throw ProviderError(.unavailable, "\(cell): cloud \(leg.cloud) of its DR leg is not in the catalog")
        }
        guard let lister = try registry.provider(named: leg.provider, for: cloud) as? any BackupLister else {
            throw ProviderError(.unavailable, "\(cell): the \(leg.provider) provider cannot list buckets")
        }
        // A key of another form is never a recovery point: it would go into a new server's user data.
        return try await lister.backups(in: leg).filter { BackupKey.isWellFormed($0.key) }
    }

    /// The recovery point of `backup` in `leg`, for the server to be made at `server`.
    func point(leg: ResourceState, server: ResourceAddress, backup: BackupObject) -> RecoveryPoints.Point {
        let bucket = ResourceBody(leg.attributes).string("bucketName") ?? leg.providerID
        let location = clouds[leg.cloud].map { BucketLocation(backupLeg: bucket, in: $0) }
            ?? BucketLocation(cloud: leg.cloud, bucket: bucket, region: "us-east-1")
        return RecoveryPoints.Point(server: server, recoveryPoint: RecoveryPoint(location: location, object: backup.key, takenAt: BackupStatus.text(backup.time)))
    }
}
