import Foundation
public import MCloudCore

/// The S3 keys a database VM's backup job (or its restore) uses for a bucket: the bucket's location, as the
/// provider read it from the server's body, plus the credentials mcloud resolves when it creates the VM. The keys go
/// into the VM's cloud-init user data (`MCloudDatabaseEngines.DatabaseUserData`) and nowhere else: not the body, the
/// state or any message.
public struct BackupUpload: Sendable {
    public var target: BucketLocation
    public var credentials: AWSCredentials

    public init(target: BucketLocation, credentials: AWSCredentials) {
        self.target = target
        self.credentials = credentials
    }

    /// The keys for `target` from the AWS chain: the environment's keys, else the catalog's profile for the bucket,
    /// else the profile named after the bucket's cloud when one exists, else `default`. The error names the bucket
    /// and what was looked for, never a key.
    public static func resolve(_ target: BucketLocation, environment: [String: String]) throws(AWSError) -> BackupUpload {
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
