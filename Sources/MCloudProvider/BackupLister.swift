/// One backup in a DR leg's bucket.
public struct BackupObject: Sendable, Hashable {
    public var key: String
    /// When the dump was taken, UTC seconds since 1970: the time the backup job names the object after, else when the
    /// bucket stored it.
    public var time: Int
    public var size: Int
    /// As the upload recorded it; nil for an object uploaded without one.
    public var sha256: String?

    public init(key: String, time: Int, size: Int, sha256: String?) {
        self.key = key
        self.time = time
        self.size = size
        self.sha256 = sha256
    }
}

/// A provider whose BackupBuckets it can list: `mcloud backups` and the recovery point of a failover read them,
/// and a restore drill waits for its scratch server's report there.
public protocol BackupLister: Sendable {
    /// The backups in a recorded BackupBucket, oldest first; the backup job's status objects are not backups.
    func backups(in bucket: ResourceState) async throws(ProviderError) -> [BackupObject]
    /// One object's bytes in a recorded BackupBucket; nil when there is none under `key`.
    func object(_ key: String, in bucket: ResourceState) async throws(ProviderError) -> [UInt8]?
    /// Writes `bytes` under `key` in a recorded BackupBucket, replacing what is there: a switchover's signed order,
    /// which the cell's members read from the bucket (docs/databases.md, "Switchover").
    func put(_ key: String, _ bytes: [UInt8], contentType: String, in bucket: ResourceState) async throws(ProviderError)
}
