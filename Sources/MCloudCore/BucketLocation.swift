/// Where a DR leg's bucket is and how a VM reaches it: the catalog cloud that holds it, the bucket's name and
/// region, the S3 endpoint for clouds that are not AWS, and the backup profile the catalog names for it. Nothing
/// secret: the keys are resolved when a VM is made and go only into its user data.
public struct BucketLocation: Sendable, Hashable {
    public var cloud: String
    public var bucket: String
    public var region: String
    public var endpoint: String?
    public var profile: String?
    /// The user scoped to this leg that mcloud makes on AWS; with it the VM's keys are that user's, not the profile's.
    public var identity: BucketIdentity?

    public init(cloud: String, bucket: String, region: String, endpoint: String? = nil, profile: String? = nil, identity: BucketIdentity? = nil) {
        self.identity = identity
        self.cloud = cloud
        self.bucket = bucket
        self.region = region
        self.endpoint = endpoint
        self.profile = profile
    }

    /// The bucket `bucket` of a DR leg in `cloud`, as a database VM reaches it: the profile is the cloud's backup
    /// identity (`endpoints.objectStorage.backupProfile`), never the one mcloud deploys with. Rendering, failover and
    /// drill all spell a leg's location through this one place.
    public init(backupLeg bucket: String, in cloud: Cloud) {
        self.init(
            cloud: cloud.name, bucket: bucket, region: cloud.region, endpoint: cloud.endpoints.objectStorageURL,
            profile: cloud.endpoints.objectStorageBackupProfile
        )
    }

    /// `s3://bucket/key`, as messages name an object.
    public func url(_ key: String) -> String { "s3://\(bucket)/\(key)" }
}

/// The backup a new database server loads once as it boots (a failover's or a drill's): its bucket, its key, and
/// when it was taken (UTC, `2026-12-02T03:04:05Z`).
public struct RecoveryPoint: Sendable, Hashable {
    public var location: BucketLocation
    public var object: String
    public var takenAt: String
    /// The moment a PostgreSQL archive is restored to (`--to`, UTC, `2026-12-02T03:04:05Z`); nil for its newest point.
    public var targetTime: String?
    /// A drill's scratch server: restored with archiving off, so it never pushes into the archive it came from.
    public var drill: Bool

    public init(location: BucketLocation, object: String, takenAt: String, targetTime: String? = nil, drill: Bool = false) {
        self.location = location
        self.object = object
        self.takenAt = takenAt
        self.targetTime = targetTime
        self.drill = drill
    }
}

/// A database server's backup job: its cron schedule, how many days its dumps are kept, and the DR leg's bucket it
/// uploads to (none: the dumps stay on the VM).
public struct BackupSettings: Sendable, Hashable {
    public var schedule: String
    public var retentionDays: Int
    public var location: BucketLocation?

    public init(schedule: String, retentionDays: Int, location: BucketLocation? = nil) {
        self.schedule = schedule
        self.retentionDays = retentionDays
        self.location = location
    }
}
