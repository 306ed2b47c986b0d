import Foundation
import MCloudCrypto
import MCloudHTTP

/// S3 buckets for disaster-recovery backups: create, versioning, lifecycle expiry, tags, listing and deletion.
/// Works against any S3-compatible endpoint; path-style addressing (`endpoint/bucket/key`) is the default for a
/// custom endpoint, virtual-host style (`bucket.s3.REGION.amazonaws.com`) for AWS.
public struct S3Client: Sendable {
    public let client: AWSClient
    public let pathStyle: Bool

    public init(client: AWSClient, pathStyle: Bool? = nil) {
        self.client = client
        self.pathStyle = pathStyle ?? client.configuration.isCustomEndpoint(.s3)
    }

    /// What a backup bucket should look like.
    public struct BucketSpec: Sendable, Hashable {
        public var name: String
        /// Current object versions expire after this many days.
        public var expireAfterDays: Int?
        /// Older (noncurrent) versions expire this many days after they were replaced.
        public var noncurrentExpireAfterDays: Int?
        public var tags: [String: String]

        public init(name: String, expireAfterDays: Int? = nil, noncurrentExpireAfterDays: Int? = nil, tags: [String: String] = [:]) {
            self.name = name
            self.expireAfterDays = expireAfterDays
            self.noncurrentExpireAfterDays = noncurrentExpireAfterDays
            self.tags = tags
        }
    }

    /// Creates the bucket when missing, then turns versioning on and sets the lifecycle rule and tags. Idempotent.
    public func ensureBucket(_ spec: BucketSpec) async throws(AWSError) {
        if try await !bucketExists(spec.name) { try await createBucket(spec.name) }
        try await enableVersioning(spec.name)
        if spec.expireAfterDays != nil || spec.noncurrentExpireAfterDays != nil {
            try await setLifecycle(spec.name, expireAfterDays: spec.expireAfterDays, noncurrentExpireAfterDays: spec.noncurrentExpireAfterDays)
        }
        if !spec.tags.isEmpty { try await setTags(spec.name, spec.tags) }
    }

    /// Creates a bucket in the client's region (with a LocationConstraint outside us-east-1). A bucket this
    /// account already owns counts as created.
    public func createBucket(_ name: String) async throws(AWSError) {
        let region = client.configuration.region
        let body = region == "us-east-1" ? nil : Array(
            "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(XMLNode.element("LocationConstraint", region))</CreateBucketConfiguration>".utf8
        )
        do {
            _ = try await send(.PUT, bucket: name, body: body, operation: "S3 CreateBucket \(name)")
        } catch where error.code == "BucketAlreadyOwnedByYou" {
            return
        }
    }

    /// HEAD on the bucket: true when it exists and is ours, false on 404; 403 (someone else's) is an error.
    public func bucketExists(_ name: String) async throws(AWSError) -> Bool {
        do {
            _ = try await send(.HEAD, bucket: name, operation: "S3 HeadBucket \(name)")
            return true
        } catch where error.status == 404 {
            return false
        }
    }

    public func enableVersioning(_ name: String) async throws(AWSError) {
        let body = "<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Status>Enabled</Status></VersioningConfiguration>"
        _ = try await send(.PUT, bucket: name, query: "versioning", body: Array(body.utf8), operation: "S3 PutBucketVersioning \(name)")
    }

    public func versioningStatus(_ name: String) async throws(AWSError) -> String? {
        let response = try await send(.GET, bucket: name, query: "versioning", operation: "S3 GetBucketVersioning \(name)")
        return try AWSClient.xml(response, operation: "S3 GetBucketVersioning \(name)").value("Status")
    }

    /// One rule for the whole bucket: expire current versions, noncurrent versions, or both.
    public func setLifecycle(_ name: String, expireAfterDays: Int?, noncurrentExpireAfterDays: Int?) async throws(AWSError) {
        var rule = "<Rule><ID>mcloud-backup-expiry</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status>"
        if let days = expireAfterDays { rule += "<Expiration><Days>\(days)</Days></Expiration>" }
        if let days = noncurrentExpireAfterDays { rule += "<NoncurrentVersionExpiration><NoncurrentDays>\(days)</NoncurrentDays></NoncurrentVersionExpiration>" }
        let body = "<LifecycleConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(rule)</Rule></LifecycleConfiguration>"
        _ = try await send(.PUT, bucket: name, query: "lifecycle", body: Array(body.utf8), operation: "S3 PutBucketLifecycleConfiguration \(name)")
    }

    /// The lifecycle rules as (expiration days, noncurrent expiration days), one pair per rule.
    public func lifecycle(_ name: String) async throws(AWSError) -> [(expireAfterDays: Int?, noncurrentExpireAfterDays: Int?)] {
        let response = try await send(.GET, bucket: name, query: "lifecycle", operation: "S3 GetBucketLifecycleConfiguration \(name)")
        return try AWSClient.xml(response, operation: "S3 GetBucketLifecycleConfiguration \(name)").children("Rule").map { rule in
            (rule.value("Expiration", "Days").flatMap { Int($0) }, rule.value("NoncurrentVersionExpiration", "NoncurrentDays").flatMap { Int($0) })
        }
    }

    public func setTags(_ name: String, _ tags: [String: String]) async throws(AWSError) {
        let set = tags.sorted { $0.key < $1.key }.map { "<Tag>\(XMLNode.element("Key", $0.key))\(XMLNode.element("Value", $0.value))</Tag>" }.joined()
        let body = "<Tagging xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><TagSet>\(set)</TagSet></Tagging>"
        _ = try await send(.PUT, bucket: name, query: "tagging", body: Array(body.utf8), operation: "S3 PutBucketTagging \(name)")
    }

    /// The bucket's tags; empty when it has none (`NoSuchTagSet`).
    public func tags(_ name: String) async throws(AWSError) -> [String: String] {
        let response: HTTPResponse
        do {
            response = try await send(.GET, bucket: name, query: "tagging", operation: "S3 GetBucketTagging \(name)")
        } catch where error.code == "NoSuchTagSet" {
            return [:]
        }
        var tags: [String: String] = [:]
        for tag in try AWSClient.xml(response, operation: "S3 GetBucketTagging \(name)", root: "Tagging").child("TagSet")?.children("Tag") ?? [] {
            if let key = tag.value("Key") { tags[key] = tag.value("Value") ?? "" }
        }
        return tags
    }

    /// Bucket names, optionally only those starting with `prefix` and carrying every tag in `tags`.
    public func listBuckets(prefix: String = "", tags wanted: [String: String] = [:]) async throws(AWSError) -> [String] {
        let response = try await client.send(
            HTTPRequest(method: .GET, url: client.endpoint(for: .s3) + "/"), service: .s3, operation: "S3 ListBuckets", signing: .s3
        )
        let names = try AWSClient.xml(response, operation: "S3 ListBuckets", root: "ListAllMyBucketsResult").child("Buckets")?.children("Bucket").compactMap { $0.value("Name") } ?? []
        var result: [String] = []
        for name in names.sorted() where name.hasPrefix(prefix) {
            if wanted.isEmpty {
                result.append(name)
                continue
            }
            // A bucket deleted between the listing and this read is not there any more: not an error.
            let tags: [String: String]
            do {
                tags = try await self.tags(name)
            } catch where error.code == "NoSuchBucket" {
                continue
            }
            if wanted.allSatisfy({ tags[$0.key] == $0.value }) { result.append(name) }
        }
        return result
    }

    /// `metadata`: user metadata, sent as `x-amz-meta-<name>` (as the backup job records a dump's SHA-256).
    public func putObject(
        bucket: String, key: String, body: [UInt8], contentType: String = "application/octet-stream", metadata: [String: String] = [:]
    ) async throws(AWSError) {
        let headers = [("Content-Type", contentType)] + metadata.sorted { $0.key < $1.key }.map { ("x-amz-meta-\($0.key)", $0.value) }
        _ = try await send(.PUT, bucket: bucket, key: key, body: body, headers: headers, operation: "S3 PutObject \(bucket)/\(key)")
    }

    public func getObject(bucket: String, key: String) async throws(AWSError) -> [UInt8] {
        try await send(.GET, bucket: bucket, key: key, operation: "S3 GetObject \(bucket)/\(key)").body
    }

    /// An object's user metadata (`x-amz-meta-*`, names without the prefix) and size; nil when it does not exist.
    public func headObject(bucket: String, key: String) async throws(AWSError) -> (metadata: [String: String], size: Int)? {
        do {
            let response = try await send(.HEAD, bucket: bucket, key: key, operation: "S3 HeadObject \(bucket)/\(key)")
            var metadata: [String: String] = [:]
            for header in response.headers where header.name.hasPrefix("x-amz-meta-") { metadata[String(header.name.dropFirst(11))] = header.value }
            return (metadata, response.headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0)
        } catch where error.status == 404 {
            return nil
        }
    }

    /// An object's contents; nil when it does not exist.
    public func objectIfExists(bucket: String, key: String) async throws(AWSError) -> [UInt8]? {
        do {
            return try await getObject(bucket: bucket, key: key)
        } catch where error.status == 404 {
            return nil
        }
    }

    /// One entry of a bucket listing: the key, its size and when S3 stored it (`2026-12-01T10:00:00.000Z`).
    public struct Object: Sendable, Hashable {
        public var key: String
        public var size: Int
        public var lastModified: String
    }

    /// The keys under `prefix`, in S3's order (ListObjectsV2, every page).
    public func listObjects(bucket: String, prefix: String) async throws(AWSError) -> [String] {
        try await objects(bucket: bucket, prefix: prefix).map(\.key)
    }

    /// The objects under `prefix` with their sizes and times, in S3's order (ListObjectsV2, every page).
    public func objects(bucket: String, prefix: String) async throws(AWSError) -> [Object] {
        var objects: [Object] = []
        var pages = PageTokens(operation: "S3 ListObjectsV2 \(bucket)")
        var token: String?
        repeat {
            var query = "list-type=2&prefix=\(PercentEncoding.encode(prefix))"
            if let token { query += "&continuation-token=\(PercentEncoding.encode(token))" }
            let response = try await send(.GET, bucket: bucket, query: query, operation: "S3 ListObjectsV2 \(bucket)")
            let listing = try AWSClient.xml(response, operation: "S3 ListObjectsV2 \(bucket)", root: "ListBucketResult")
            objects += listing.children("Contents").compactMap { entry in
                entry.value("Key").map { Object(key: $0, size: entry.value("Size").flatMap { Int($0) } ?? 0, lastModified: entry.value("LastModified") ?? "") }
            }
            guard listing.value("IsTruncated") != "true" || listing.value("NextContinuationToken") != nil else {
                throw .invalidResponse(operation: "S3 ListObjectsV2 \(bucket)", detail: "a truncated listing without a NextContinuationToken")
            }
            token = try pages.advance(listing.value("IsTruncated") == "true" ? listing.value("NextContinuationToken") : nil)
        } while token != nil
        return objects
    }

    /// Deletes every object version and delete marker, then the bucket. A missing bucket counts as deleted.
    public func deleteBucket(_ name: String) async throws(AWSError) {
        do {
            // Each round deletes what the first page lists and asks again, so a page that starts with a version
            // already deleted means the server is repeating itself.
            var pages = PageTokens(operation: "S3 ListObjectVersions \(name)")
            while true {
                let response = try await send(.GET, bucket: name, query: "versions", operation: "S3 ListObjectVersions \(name)")
                let listing = try AWSClient.xml(response, operation: "S3 ListObjectVersions \(name)", root: "ListVersionsResult")
                let versions = listing.children.filter { $0.localName == "Version" || $0.localName == "DeleteMarker" }
                let first = versions.first.map { "\($0.value("Key") ?? "")\u{0}\($0.value("VersionId") ?? "")" }
                _ = try pages.advance(listing.value("IsTruncated") == "true" ? first : nil)
                for version in versions {
                    guard let key = version.value("Key"), let id = version.value("VersionId") else { continue }
                    _ = try await send(.DELETE, bucket: name, key: key, query: "versionId=\(PercentEncoding.encode(id))", operation: "S3 DeleteObject \(name)/\(key)")
                }
                if versions.isEmpty || listing.value("IsTruncated") != "true" { break }
            }
            _ = try await send(.DELETE, bucket: name, operation: "S3 DeleteBucket \(name)")
        } catch where error.code == "NoSuchBucket" || error.status == 404 && error.code == "NotFound" {
            return
        }
    }

    /// The URL of a bucket or object in the client's addressing style.
    public func url(bucket: String, key: String? = nil, query: String? = nil) -> String {
        let base = client.endpoint(for: .s3)
        let path = key.map { "/" + PercentEncoding.encode($0, keepSlash: true) } ?? ""
        let tail = query.map { "?\($0)" } ?? ""
        if pathStyle { return "\(base)/\(bucket)\(path.isEmpty ? "" : path)\(tail)" }
        let parts = URLParts(base)
        return "\(parts.scheme)://\(bucket).\(parts.authority)\(path.isEmpty ? "/" : path)\(tail)"
    }

    private func send(
        _ method: HTTPRequest.Method, bucket: String, key: String? = nil, query: String? = nil, body: [UInt8]? = nil,
        headers: [(name: String, value: String)] = [], operation: String
    ) async throws(AWSError) -> HTTPResponse {
        var headers = headers
        if let body {
            // S3 requires Content-MD5 on configuration writes (lifecycle, tagging) and checks it on every upload.
            headers.append(("Content-MD5", Data(MD5.digest(body)).base64EncodedString()))
            // Without a type, libcurl labels a body form data, and S3-compatible servers may parse it as such.
            if !headers.contains(where: { $0.name.lowercased() == "content-type" }) { headers.append(("Content-Type", "application/xml")) }
        }
        let request = HTTPRequest(method: method, url: url(bucket: bucket, key: key, query: query), headers: headers, body: body)
        return try await client.send(request, service: .s3, operation: operation, signing: .s3)
    }
}
