import Foundation
public import MCloudCore

/// Where a database VM's backup job uploads its dumps, and with which keys: `spec.backup` of its DatabaseServer
/// (bucket, region, endpoint, profile; nothing secret) plus the S3 credentials mcloud resolves when it creates the
/// VM. The keys go into the VM's cloud-init user data (`MCloudDatabaseEngines.DatabaseUserData`) and nowhere else: not
/// the body, the state or any message.
public struct BackupUpload: Sendable {
    /// What `spec.backup` says: the bucket's catalog cloud, name, region, S3 endpoint and AWS profile.
    public struct Target: Sendable, Equatable {
        public var cloud: String
        public var bucket: String
        public var region: String
        public var endpoint: String?
        public var profile: String?

        public init(cloud: String, bucket: String, region: String, endpoint: String? = nil, profile: String? = nil) {
            self.cloud = cloud
            self.bucket = bucket
            self.region = region
            self.endpoint = endpoint
            self.profile = profile
        }

        /// A DatabaseServer's `spec.backup`; nil without it or without its bucket.
        public init?(databaseServer body: JSONValue) {
            func field(_ name: String) -> String? { body.value(at: ["spec", "backup", name])?.stringValue }
            guard let bucket = field("bucket") else { return nil }
            self.init(cloud: field("cloud") ?? "", bucket: bucket, region: field("region") ?? "", endpoint: field("endpoint"), profile: field("profile"))
        }
    }

    public var target: Target
    public var credentials: AWSCredentials

    public init(target: Target, credentials: AWSCredentials) {
        self.target = target
        self.credentials = credentials
    }

    /// The keys for `target` from the AWS chain: the environment's keys, else the profile `spec.backup.profile`,
    /// else the profile named after the bucket's cloud when one exists, else `default`. The error names the bucket
    /// and what was looked for, never a key.
    public static func resolve(_ target: Target, environment: [String: String]) throws(AWSError) -> BackupUpload {
        var settings = environment
        if environment["AWS_ACCESS_KEY_ID"] == nil {
            if let profile = target.profile {
                settings["AWS_PROFILE"] = profile
            } else if !target.cloud.isEmpty, AWSConfigurationLoader.hasProfile(target.cloud, environment: environment) {
                settings["AWS_PROFILE"] = target.cloud
            }
        }
        // Only the keys are used: the bucket's region comes from the spec.
        settings["AWS_REGION"] = target.region.isEmpty ? "us-east-1" : target.region
        let credentials: AWSCredentials
        do throws(AWSError) {
            credentials = try AWSConfigurationLoader.load(environment: settings).credentials
        } catch {
            throw .configuration("no credentials for the backup job's bucket \(target.bucket) in cloud \(target.cloud): \(error.description)")
        }
        let upload = BackupUpload(target: target, credentials: credentials)
        // A line break would end the value early in the user data's env file.
        let values = [credentials.accessKeyID, credentials.secretAccessKey, credentials.sessionToken ?? "", target.bucket, target.region, target.endpoint ?? ""]
        guard values.allSatisfy({ $0.unicodeScalars.allSatisfy { !CharacterSet.controlCharacters.contains($0) } }) else {
            throw .configuration("the backup credentials or settings for bucket \(target.bucket) contain a control character")
        }
        return upload
    }

    /// The keys, as the assignments of the VM's root-only `/etc/mcloud/backup.env`: the only secret of its user data.
    public var secrets: [(name: String, value: String)] {
        var pairs = [(name: "AWS_ACCESS_KEY_ID", value: credentials.accessKeyID), (name: "AWS_SECRET_ACCESS_KEY", value: credentials.secretAccessKey)]
        if let token = credentials.sessionToken { pairs.append((name: "AWS_SESSION_TOKEN", value: token)) }
        return pairs
    }
}

extension BackupUpload: CustomStringConvertible {
    public var description: String { "BackupUpload(bucket: \(target.bucket), credentials: \(credentials))" }
}
