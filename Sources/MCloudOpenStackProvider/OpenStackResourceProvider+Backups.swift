import MCloudAWS
public import MCloudProvider

/// The backups in a DR leg's bucket of the cloud's object storage (`BackupBucketKind.backups`).
extension OpenStackResourceProvider: BackupLister {
    public func backups(in bucket: ResourceState) async throws(ProviderError) -> [BackupObject] {
        do throws(AWSError) {
            return try await buckets.backups(bucket.providerID)
        } catch {
            throw ProviderFailure.wrap(error, "listing the backups in bucket \(bucket.providerID) of cloud \(cloud)")
        }
    }

    public func object(_ key: String, in bucket: ResourceState) async throws(ProviderError) -> [UInt8]? {
        do throws(AWSError) {
            return try await buckets.storage.value().objectIfExists(bucket: bucket.providerID, key: key)
        } catch {
            throw ProviderFailure.wrap(error, "reading \(key) in bucket \(bucket.providerID) of cloud \(cloud)")
        }
    }

    public func put(_ key: String, _ bytes: [UInt8], contentType: String, in bucket: ResourceState) async throws(ProviderError) {
        do throws(AWSError) {
            try await buckets.storage.value().putObject(bucket: bucket.providerID, key: key, body: bytes, contentType: contentType)
        } catch {
            throw ProviderFailure.wrap(error, "writing \(key) in bucket \(bucket.providerID) of cloud \(cloud)")
        }
    }
}
