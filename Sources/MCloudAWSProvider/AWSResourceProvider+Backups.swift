import MCloudAWS
import MCloudDatabaseEngines
public import MCloudProvider

/// The backups in a DR leg's S3 bucket: every object but the status objects, with the SHA-256 its upload recorded.
extension AWSResourceProvider: BackupLister {
    public func backups(in bucket: ResourceState) async throws(ProviderError) -> [BackupObject] {
        let s3 = try await session().s3
        return try await Self.attempt("listing the backups in bucket \(bucket.providerID)") { () throws(AWSError) in
            var found: [BackupObject] = []
            for object in try await s3.objects(bucket: bucket.providerID, prefix: "") {
                guard let time = DatabaseUserData.backupTime(key: object.key, storedAt: object.lastModified) else { continue }
                let sha256 = try await s3.headObject(bucket: bucket.providerID, key: object.key)?.metadata["sha256"]
                found.append(BackupObject(key: object.key, time: time, size: object.size, sha256: sha256))
            }
            return found.sorted { ($0.time, $0.key) < ($1.time, $1.key) }
        }
    }

    public func object(_ key: String, in bucket: ResourceState) async throws(ProviderError) -> [UInt8]? {
        let s3 = try await session().s3
        return try await Self.attempt("reading \(key) in bucket \(bucket.providerID)") { () throws(AWSError) in
            try await s3.objectIfExists(bucket: bucket.providerID, key: key)
        }
    }

    public func put(_ key: String, _ bytes: [UInt8], contentType: String, in bucket: ResourceState) async throws(ProviderError) {
        let s3 = try await session().s3
        try await Self.attempt("writing \(key) in bucket \(bucket.providerID)") { () throws(AWSError) in
            try await s3.putObject(bucket: bucket.providerID, key: key, body: bytes, contentType: contentType)
        }
    }
}
