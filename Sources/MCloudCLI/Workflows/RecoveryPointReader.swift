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
    /// be read or holds no backup of the lost server. With `target` (`--to`), a leg of dumps and shipped binary logs
    /// restores from the newest dump before it, replayed up to it (`toMoment`); an archive is targeted afterwards.
    func points(_ needs: [RecoveryPoints.Need], target: String? = nil) async throws(ProviderError) -> [(point: RecoveryPoints.Point, backup: BackupObject)] {
        var found: [(point: RecoveryPoints.Point, backup: BackupObject)] = []
        for need in needs {
            guard let leg = need.leg else { continue }
            // A leg on AWS gets a restore user of its own (RestoreIdentity); only another needs a backup profile.
            if leg.provider != .aws, let problem = Self.withoutBackupIdentity(leg, cell: need.cell, clouds: clouds, reader: "the new primary") {
                throw ProviderError(.unavailable, problem)
            }
            if let archived = try await archived(leg, server: String(need.prefix.dropLast()), cell: need.cell) {
                found.append((point(leg: leg, server: need.server, backup: archived), archived))
                continue
            }
            let objects = try await objects(leg, cell: need.cell)
            if let target {
                let start = try Self.toMoment(target, objects: objects, server: String(need.prefix.dropLast()))
                var point = point(leg: leg, server: need.server, backup: start)
                point.recoveryPoint.targetTime = target
                found.append((point, start))
                continue
            }
            guard let newest = RecoveryPoints.newest(objects.filter { BackupKey.isWellFormed($0.key) }, for: need) else {
                throw ProviderError(.failed, "\(need.cell): its DR leg \(leg.providerID) in \(leg.cloud) holds no backup of \(need.prefix.dropLast()); nothing to restore it from")
            }
            let replayed = Self.replaying(newest, objects: objects, server: String(need.prefix.dropLast()))
            found.append((point(leg: leg, server: need.server, backup: replayed), replayed))
        }
        return found
    }

    /// Why `reader`, a server made to restore from `leg`, would have no keys to read it with: the leg's cloud names no
    /// backup identity, and a VM never gets mcloud's own keys (docs/security.md, H2). Nil when it names one.
    static func withoutBackupIdentity(_ leg: ResourceState, cell: String, clouds: [String: Cloud], reader: String) -> String? {
        guard let cloud = clouds[leg.cloud], cloud.endpoints.objectStorageBackupProfile == nil else { return nil }
        return "\(cell)'s DR leg \(leg.providerID) in \(leg.cloud) has no backup identity for \(reader) to read it with: set endpoints.objectStorage.backupProfile in \(leg.cloud)'s catalog entry (\(cloud.location))"
    }

    /// The newest point of `server`'s PostgreSQL archive in `leg`, as a backup whose key is the repository
    /// (`<server>/g<generation>`, from the status object its primary writes every minute); nil when the leg holds that
    /// server's dumps instead. Its time is the newest WAL segment's in the bucket, which the restore replays: the
    /// status object's `archivedAt` is up to its minute older (a drill under load stated 80 s for a point 30 s old).
    func archived(_ leg: ResourceState, server: String, cell: String) async throws(ProviderError) -> BackupObject? {
        guard let cloud = clouds[leg.cloud] else {
            throw ProviderError(.unavailable, "\(cell): cloud \(leg.cloud) of its DR leg is not in the catalog")
        }
        guard let lister = try registry.provider(named: leg.provider, for: cloud) as? any BackupLister else {
            throw ProviderError(.unavailable, "\(cell): the \(leg.provider) provider cannot list buckets")
        }
        guard let bytes = try await lister.object(DatabaseUserData.statusKey(server: server), in: leg),
              let document = try? JSONParser.parse(bytes), let repository = document["repository"]?.stringValue,
              PostgreSQLArchive.repository(named: repository)?.server == server,
              let reported = document["archivedAt"]?.stringValue.flatMap(BackupStatus.time) else { return nil }
        let pushed = try await lister.backups(in: leg).filter { $0.key.hasPrefix(repository + "/archive/") }.map(\.time).max()
        return BackupObject(key: repository, time: max(reported, pushed ?? reported), size: 0, sha256: nil)
    }

    /// `dump` at the point its restore reaches: MariaDB's binary logs shipped after it, which the restore replays
    /// (`BinaryLogArchive`), move it to the newest one's upload.
    static func replaying(_ dump: BackupObject, objects: [BackupObject], server: String) -> BackupObject {
        let logs = BinaryLogArchive.prefix(server: server)
        var point = dump
        if let shipped = objects.filter({ $0.key.hasPrefix(logs) && $0.key.hasSuffix(".age") }).map(\.time).max(), shipped > dump.time {
            point.time = shipped
        }
        return point
    }

    /// The dump a restore of `server` to `target` starts from, stated at the target: the newest dump uploaded by then,
    /// which the restore replays up to the target with the binary logs shipped after it (`BinaryLogArchive`). Throws
    /// when the leg holds no log shipped at or after the target (the moment is not in the leg), or no dump before it.
    static func toMoment(_ target: String, objects: [BackupObject], server: String) throws(ProviderError) -> BackupObject {
        guard let seconds = BackupStatus.time(target) else { throw ProviderError(.failed, "--to \(target) is not a time") }
        let logs = BinaryLogArchive.prefix(server: server)
        guard let shipped = objects.filter({ $0.key.hasPrefix(logs) && $0.key.hasSuffix(".age") }).map(\.time).max() else {
            throw ProviderError(.failed, "--to restores a moment of a PostgreSQL archive or of shipped binary logs; \(server)'s leg holds dumps only")
        }
        guard seconds <= shipped else {
            throw ProviderError(.failed, "--to \(target) is after the newest point \(server)'s leg holds, \(BackupStatus.text(shipped))")
        }
        let dumps = objects.filter { BackupKey.isWellFormed($0.key) && $0.key.hasPrefix(server + "/") && $0.time <= seconds }
        guard var start = dumps.max(by: { ($0.time, $0.key) < ($1.time, $1.key) }) else {
            throw ProviderError(.failed, "--to \(target) is before the oldest dump of \(server) in its leg: its logs replay from a dump")
        }
        start.time = seconds
        return start
    }

    /// `restores` restored to `target` (`--to`): each must be an archive, and the target no later than its newest
    /// point; the point's time becomes the target's. A point `points` already took to the target is kept.
    static func targeting(
        _ restores: [(point: RecoveryPoints.Point, backup: BackupObject)], _ target: String?
    ) throws(ProviderError) -> [(point: RecoveryPoints.Point, backup: BackupObject)] {
        guard let target, let seconds = BackupStatus.time(target) else { return restores }
        var targeted: [(point: RecoveryPoints.Point, backup: BackupObject)] = []
        for restore in restores {
            var (point, backup) = restore
            if point.recoveryPoint.targetTime == target {
                point.recoveryPoint.takenAt = target
                targeted.append((point, backup))
                continue
            }
            guard PostgreSQLArchive.repository(named: backup.key) != nil else {
                throw ProviderError(.failed, "--to restores a moment of a PostgreSQL archive; \(point.server)'s recovery point is a dump, \(backup.key)")
            }
            guard seconds <= backup.time else {
                throw ProviderError(.failed, "--to \(target) is after the newest point \(backup.key) holds, \(BackupStatus.text(backup.time))")
            }
            point.recoveryPoint.targetTime = target
            point.recoveryPoint.takenAt = target
            backup.time = seconds
            targeted.append((point, backup))
        }
        return targeted
    }

    /// Every object of the leg: backups, status objects, shipped logs. Only a key of the backup job's layout
    /// (`BackupKey`) is ever a recovery point: another would go into a new server's user data.
    func objects(_ leg: ResourceState, cell: String) async throws(ProviderError) -> [BackupObject] {
        guard let cloud = clouds[leg.cloud] else {
            throw ProviderError(.unavailable, "\(cell): cloud \(leg.cloud) of its DR leg is not in the catalog")
        }
        guard let lister = try registry.provider(named: leg.provider, for: cloud) as? any BackupLister else {
            throw ProviderError(.unavailable, "\(cell): the \(leg.provider) provider cannot list buckets")
        }
        return try await lister.backups(in: leg)
    }

    /// The recovery point of `backup` in `leg`, for the server to be made at `server`.
    func point(leg: ResourceState, server: ResourceAddress, backup: BackupObject) -> RecoveryPoints.Point {
        let bucket = ResourceBody(leg.attributes).string("bucketName") ?? leg.providerID
        let location = clouds[leg.cloud].map { BucketLocation(backupLeg: bucket, in: $0) }
            ?? BucketLocation(cloud: leg.cloud, bucket: bucket, region: "us-east-1")
        return RecoveryPoints.Point(server: server, recoveryPoint: RecoveryPoint(location: location, object: backup.key, takenAt: BackupStatus.text(backup.time)))
    }
}
