import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider

/// `BackupBucket` as a bucket of the cloud's S3-compatible object storage (`endpoints.objectStorage.url`): named
/// `spec.bucketName` (which the database VMs' backup jobs upload to), else `mcloud-<metadata.name>` (lowercase,
/// dots as dashes, at most 63 characters), versioned, current and older
/// versions expiring after `retentionDays`, tagged `managed-by`, `application` and `mcloud-address`. Reads back the
/// expiry and the name; source, differentVendor and changeGiBDay come from the state. The status object its source
/// VM's backup job writes is read too: backups that stopped are a warning on the refreshed bucket.
struct BackupBucketKind: Sendable {
    static let kind = ResourceKind.backupBucket
    let cloud: String
    /// The S3 client of the cloud's object storage, made on first use: a plan that touches no bucket needs no keys.
    let storage: OnFirstUse<S3Client, AWSError>
    /// When the status object is judged.
    let clock: any WallClock

    static func bucketName(_ name: String) -> String {
        let cleaned = name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }
        var bucket = String(("mcloud-" + String(cleaned)).prefix(63))
        while bucket.hasSuffix("-") { bucket.removeLast() }
        return bucket
    }

    func observe(application: String, bases: [ResourceAddress: ResourceBody]) async throws(AWSError) -> [ObservedResource] {
        let s3 = try await storage.value()
        var observed: [ObservedResource] = []
        for bucket in try await s3.listBuckets(prefix: "mcloud-", tags: OwnershipKeys.filter(application: application)) {
            let tags = try await s3.tags(bucket)
            guard let text = tags[OwnershipKeys.address], let name = OwnershipKeys.name(of: text, cloud: cloud, kind: Self.kind) else { continue }
            let address = ResourceAddress(text)
            let base = bases[address] ?? .orphan(kind: Self.kind, address: address, name: name, cloud: cloud)
            let days = try await s3.lifecycle(bucket).compactMap(\.expireAfterDays).first
            let read = base.settingSpec(["retentionDays"], days.map(JSONValue.int)).settingSpec(["bucketName"], .string(bucket))
            var warnings: [String] = []
            if let watch = BackupHealth.Watch(bucket: base.document) {
                warnings += watch.problems(
                    statusObject: try await s3.objectIfExists(bucket: bucket, key: watch.key),
                    replicationObject: try await s3.objectIfExists(bucket: bucket, key: watch.replicationKey), now: clock.nowSeconds
                )
            }
            observed.append(ObservedResource(address: address, providerID: bucket, attributes: read.document, warnings: warnings))
        }
        return observed
    }

    static func replacementReasons(desired: ResourceBody, current: ResourceBody) -> [String] {
        desired.string("bucketName") == current.string("bucketName") ? [] : ["spec.bucketName cannot change: a bucket cannot be renamed"]
    }

    /// Creates the bucket or brings an existing one to the spec: both are `ensureBucket`.
    func apply(_ body: ResourceBody) async throws(AWSError) -> ObservedResource {
        let bucket = body.string("bucketName") ?? Self.bucketName(body.name)
        let days = body.int("retentionDays")
        try await storage.value().ensureBucket(S3Client.BucketSpec(
            name: bucket, expireAfterDays: days, noncurrentExpireAfterDays: days,
            tags: [OwnershipKeys.managedBy: ResourceLabels.manager, "application": body.application, "cell": body.cell ?? body.name, OwnershipKeys.address: body.address.rawValue]
        ))
        return ObservedResource(address: body.address, providerID: bucket, attributes: body.document)
    }

    /// Every object but the status objects, oldest first, with the SHA-256 its upload recorded.
    func backups(_ bucket: String) async throws(AWSError) -> [BackupObject] {
        let s3 = try await storage.value()
        var found: [BackupObject] = []
        for object in try await s3.objects(bucket: bucket, prefix: "") {
            guard let time = DatabaseUserData.backupTime(key: object.key, storedAt: object.lastModified) else { continue }
            let sha256 = try await s3.headObject(bucket: bucket, key: object.key)?.metadata["sha256"]
            found.append(BackupObject(key: object.key, time: time, size: object.size, sha256: sha256))
        }
        return found.sorted { ($0.time, $0.key) < ($1.time, $1.key) }
    }

    /// Deletes every object version, then the bucket.
    func delete(_ recorded: ResourceState) async throws(AWSError) {
        try await storage.value().deleteBucket(recorded.providerID)
    }
}
