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

    /// The variables that say where the operator's AWS files are: the only part of mcloud's environment a backup
    /// identity is read through.
    static let fileLocations = ["HOME", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"]

    /// The keys for `target` from the profile the catalog names as the bucket's backup identity
    /// (`endpoints.objectStorage.backupProfile`), in the operator's AWS files, and from nowhere else: never the
    /// process environment's `AWS_ACCESS_KEY_ID` or `AWS_PROFILE`, which are mcloud's own identity, and never a
    /// `default` profile. The error names the bucket, its cloud and the profile, never a key.
    public static func resolve(_ target: BucketLocation, environment: [String: String]) throws(AWSError) -> BackupUpload {
        guard let profile = target.profile else {
            throw .configuration(
                "the backup bucket \(target.bucket) in cloud \(target.cloud) has no backup identity: set endpoints.objectStorage.backupProfile of \(target.cloud) in the catalog; a VM never gets mcloud's own keys"
            )
        }
        var settings = environment.filter { fileLocations.contains($0.key) }
        settings["AWS_PROFILE"] = profile
        // Only the keys are used: the bucket's region comes from the spec.
        settings["AWS_REGION"] = target.region.isEmpty ? "us-east-1" : target.region
        let credentials: AWSCredentials
        do throws(AWSError) {
            credentials = try AWSConfigurationLoader.load(environment: settings).credentials
        } catch {
            throw .configuration("no credentials for the backup job's bucket \(target.bucket) in cloud \(target.cloud) (backup profile \(profile)): \(error.description)")
        }
        return try checked(BackupUpload(target: target, credentials: credentials))
    }

    /// The upload, unless a value holds a control character: a line break would end the value early in the user
    /// data's env file.
    static func checked(_ upload: BackupUpload) throws(AWSError) -> BackupUpload {
        let (target, credentials) = (upload.target, upload.credentials)
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
