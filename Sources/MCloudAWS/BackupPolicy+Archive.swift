import MCloudCore

extension BackupPolicy {
    /// The one inline policy of a leg's user whose primary archives with pgBackRest.
    public static let archiveName = "mcloud-archive"

    /// pgBackRest's rights under `prefix`: it reads and rewrites its encrypted `archive.info` and `backup.info`, lists
    /// its WAL and backups, and deletes `backup/<stanza>/latest` at every backup and what expiry drops, so
    /// `s3:GetObject`, `s3:PutObject`, `s3:DeleteObject` and `s3:AbortMultipartUpload` on the prefix and
    /// `s3:ListBucket` only for keys under it (tested on moto's checking server: without Delete a backup fails). No
    /// `s3:DeleteObjectVersion`, `s3:PutBucketVersioning` or `s3:PutLifecycleConfiguration`: with the bucket versioned,
    /// a delete from the VM leaves a noncurrent version the lifecycle rule keeps until the retention ends.
    public static func archive(bucket: String, prefix: String) -> String {
        let list = statement(["s3:ListBucket"], resource: "arn:aws:s3:::\(bucket)", condition: [("StringLike", .object([("s3:prefix", .array([.string("\(prefix)*")]))]))])
        return document([
            statement(["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"], resource: "arn:aws:s3:::\(bucket)/\(prefix)*"), list,
        ])
    }
}
