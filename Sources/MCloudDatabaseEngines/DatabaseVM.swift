public import MCloudCore
public import MCloudSecrets

/// Everything the user data of one database VM depends on: what the provider knows (the server's address and
/// name, the names its data disk may appear under) and what the manifests asked for (the recipe, the port, the
/// backup schedule and the DR bucket).
public struct DatabaseVM: Sendable {
    /// Where the backups go: the DR bucket and the settings to reach it. `secrets` are the assignments of the
    /// root-only `/etc/mcloud/backup.env` (the bucket's keys); nothing else of the user data is secret.
    public struct Bucket: Sendable {
        public var name: String
        public var region: String
        /// An S3-compatible endpoint; nil for AWS's own S3.
        public var endpoint: String?
        public var secrets: [(name: String, value: String)]
        /// The keys may only upload (a leg's own IAM user): the job leaves expiry to the bucket's lifecycle rule.
        public var writeOnly: Bool

        public init(name: String, region: String, endpoint: String? = nil, secrets: [(name: String, value: String)] = [], writeOnly: Bool = false) {
            self.writeOnly = writeOnly
            self.name = name
            self.region = region
            self.endpoint = endpoint
            self.secrets = secrets
        }

        public init(_ location: BucketLocation, secrets: [(name: String, value: String)]) {
            self.init(name: location.bucket, region: location.region, endpoint: location.endpoint, secrets: secrets, writeOnly: location.identity != nil)
        }
    }

    public struct Backup: Sendable {
        /// A cron schedule (`CronSchedule`), in the VM's time zone (UTC on cloud images).
        public var schedule: String
        public var retentionDays: Int
        /// Nil keeps the dumps on the VM only.
        public var bucket: Bucket?

        public init(schedule: String, retentionDays: Int, bucket: Bucket? = nil) {
            self.schedule = schedule
            self.retentionDays = retentionDays
            self.bucket = bucket
        }
    }

    /// A backup to load once the engine first answers, before any backup of this server runs: the recovery point of
    /// a failover or a restore drill, in another cloud's bucket, with that bucket's keys (the root-only
    /// `/etc/mcloud/restore.env`). The outcome is written back beside it (`DatabaseUserData.restoreReportKey`).
    public struct RecoveryPoint: Sendable {
        public var bucket: Bucket
        /// The backup's key in the bucket (`<server>/<time>.<ext>`), or an archive's repository path.
        public var object: String
        /// PostgreSQL's encrypted archive to restore from (`PostgreSQLArchive`); nil for a dump.
        public var archive: PostgreSQLArchive.Repository?
        /// The moment to restore to (RFC 3339, UTC); nil for the newest point the archive holds.
        public var targetTime: String?
        /// A drill's scratch server: restored with archiving off, so it never pushes into the archive it came from.
        public var drill: Bool
        /// The identity that decrypts an encrypted dump (`DumpEncryption`), written only to a root-only 0600 file;
        /// nil for a plain dump or an archive.
        public var identity: AgeIdentity?

        public init(
            bucket: Bucket, object: String, archive: PostgreSQLArchive.Repository? = nil, targetTime: String? = nil, drill: Bool = false,
            identity: AgeIdentity? = nil
        ) {
            self.identity = identity
            self.bucket = bucket
            self.object = object
            self.archive = archive
            self.targetTime = targetTime
            self.drill = drill
        }
    }

    /// The resource address, for the header comment.
    public var address: String
    /// The server's name: the folder of its backups in the bucket.
    public var server: String
    public var recipe: Recipe
    public var port: Int
    /// The device paths the attached data volume may have, most specific first (`/dev/disk/by-id/virtio-<id>`,
    /// `/dev/vdb`): the first that is a blank disk or mcloud's data disk is used.
    public var disks: [String]
    public var backup: Backup?
    public var recoveryPoint: RecoveryPoint?
    /// TLS and the dependent services' users; nil for a server no service uses.
    public var access: ServerAccess?
    /// PostgreSQL's continuous archive in the backup's bucket, in place of its dumps; nil keeps the dumps.
    public var archive: PostgreSQLArchive.Repository?
    /// The recipient the dumps are encrypted to before they are uploaded (`DumpEncryption`); public, so it is all
    /// the server holds. A server with a DR bucket and none uploads nothing (never a plain dump).
    public var dumpRecipient: AgeRecipient?

    public init(
        address: String, server: String, recipe: Recipe, port: Int, disks: [String], backup: Backup? = nil, recoveryPoint: RecoveryPoint? = nil,
        access: ServerAccess? = nil
    ) {
        self.access = access
        self.address = address
        self.server = server
        self.recipe = recipe
        self.port = port
        self.disks = disks
        self.backup = backup
        self.recoveryPoint = recoveryPoint
    }
}
