import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudYAML
import Testing
@testable import MCloudOpenStackProvider

/// The DR keys a database VM gets: from the backup profile the catalog names for the bucket's cloud, never from mcloud's
/// own identity, and written only into the root-only file of its cloud-init user data.
struct BackupUploadTests {
    static let target = BucketLocation(
        cloud: "vk-msk", bucket: "mcloud-shop-db-0123abcd", region: "ru-msk", endpoint: "https://s3.example.net"
    )

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var target: BucketLocation
        var environment: [String: String]
        /// The profile files written under the test's HOME.
        var credentialsFile: String = ""
        var keyID: String
        var token: String?
        var testDescription: String { name }
    }

    static let drTarget = BucketLocation(cloud: target.cloud, bucket: target.bucket, region: target.region, endpoint: target.endpoint, profile: "dr")
    static let drFile = "[dr]\naws_access_key_id = AKIDDR\naws_secret_access_key = it's-dr\n"

    static let cases: [Case] = [
        Case(name: "the backup profile's keys, S3-compatible endpoint", target: drTarget, environment: [:], credentialsFile: drFile, keyID: "AKIDDR"),
        Case(name: "temporary keys keep their session token, AWS's own endpoint",
             target: .init(cloud: "aws-irl", bucket: "b-1", region: "eu-west-1", profile: "aws-irl-backup"), environment: [:],
             credentialsFile: "[aws-irl-backup]\naws_access_key_id = AKIDTMP\naws_secret_access_key = secret-tmp\naws_session_token = token-tmp\n",
             keyID: "AKIDTMP", token: "token-tmp"),
        // mcloud's own identity in the environment never reaches a VM (docs/security.md, H2).
        Case(name: "the backup profile wins over the environment's keys", target: drTarget,
             environment: ["AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secret-env", "AWS_SESSION_TOKEN": "token-env"],
             credentialsFile: drFile, keyID: "AKIDDR"),
        Case(name: "the backup profile wins over the environment's AWS_PROFILE", target: drTarget, environment: ["AWS_PROFILE": "mcloud"],
             credentialsFile: "[mcloud]\naws_access_key_id = AKIDMCLOUD\naws_secret_access_key = secret-mcloud\n" + drFile, keyID: "AKIDDR"),
        Case(name: "the backup profile wins over the profile named after the bucket's cloud", target: drTarget, environment: [:],
             credentialsFile: "[default]\naws_access_key_id = AKIDDEF\naws_secret_access_key = secret-def\n[vk-msk]\naws_access_key_id = AKIDVK\naws_secret_access_key = secret-vk\n" + drFile,
             keyID: "AKIDDR"),
    ]

    static func home(_ credentials: String) throws -> String {
        let home = NSTemporaryDirectory() + "mcloud-backup-upload-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
        try credentials.write(toFile: home + "/.aws/credentials", atomically: true, encoding: .utf8)
        return home
    }

    /// The user data of a PostgreSQL VM whose DR bucket is `upload`'s, as the provider renders it.
    static func userData(_ upload: BackupUpload?) throws -> String {
        let recipe = try #require(EngineCatalog.recipe(engine: "postgresql", version: "15", family: .debian12))
        let bucket = upload.map { DatabaseVM.Bucket(name: $0.target.bucket, region: $0.target.region, endpoint: $0.target.endpoint, secrets: $0.secrets) }
        return DatabaseUserData.render(DatabaseVM(
            address: "openstack.ps-ala.DatabaseServer.shop.db.0", server: "shop.db.0", recipe: recipe, port: 5432, disks: ["/dev/vdb"],
            backup: DatabaseVM.Backup(schedule: "0 3 * * *", retentionDays: 7, bucket: bucket)
        ))
    }

    /// The user data parsed as YAML, so a broken indentation fails here rather than on the VM.
    static func files(_ text: String) throws -> [String: YAMLNode] {
        let root = try #require(YAMLReader.read(text, file: "user-data").documents.first?.root)
        let files = try #require(root["write_files"]?.sequence)
        return Dictionary(uniqueKeysWithValues: files.compactMap { file in file["path"]?.scalar.map { ($0.value, file) } })
    }

    @Test("the resolved keys go into a root-only env file, the bucket and endpoint into the settings", arguments: cases)
    func userData(_ test: Case) throws {
        var environment = test.environment
        environment["HOME"] = try Self.home(test.credentialsFile)
        let upload = try BackupUpload.resolve(test.target, environment: environment)
        #expect(upload.credentials.accessKeyID == test.keyID)
        #expect(upload.credentials.sessionToken == test.token)
        #expect(upload.secrets.map(\.name) == ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] + (test.token == nil ? [] : ["AWS_SESSION_TOKEN"]))
        let files = try Self.files(try Self.userData(upload))
        let env = try #require(files["/etc/mcloud/backup.env"])
        #expect(env["permissions"]?.scalar?.value == "0600")
        #expect(env["owner"]?.scalar?.value == "root:root")
        let content = try #require(env["content"]?.scalar?.value)
        #expect(content.contains("AWS_ACCESS_KEY_ID='\(test.keyID)'"))
        #expect(content.contains("AWS_SECRET_ACCESS_KEY=\(DatabaseUserData.quoted(upload.credentials.secretAccessKey))"))
        #expect(content.contains("AWS_SESSION_TOKEN") == (test.token != nil))
        let settings = try #require(files["/etc/mcloud/database.conf"]?["content"]?.scalar?.value)
        #expect(!settings.contains(upload.credentials.secretAccessKey))
        #expect(settings.contains("MCLOUD_BACKUP_BUCKET='\(test.target.bucket)'"))
        #expect(settings.contains("AWS_DEFAULT_REGION='\(test.target.region)'"))
        #expect(settings.contains("MCLOUD_BACKUP_ENDPOINT") == (test.target.endpoint != nil))
        #expect(settings.contains("awscli"))
        #expect(!String(describing: upload).contains(upload.credentials.secretAccessKey))
    }

    @Test("without a DR bucket the user data has no keys and no upload tool")
    func withoutUpload() throws {
        let text = try Self.userData(nil)
        #expect(try Self.files(text)["/etc/mcloud/backup.env"] == nil)
        #expect(!text.contains("awscli"))
        #expect(!text.contains("MCLOUD_BACKUP_BUCKET="))
    }

    /// Regression (issue 32, H2): without a backup profile the environment's keys, mcloud's own, went to the VM.
    @Test("no backup identity is an error naming the bucket and what to set or what is missing, never a key", arguments: [
        ("no backup profile", target, ["vk-msk", "endpoints.objectStorage.backupProfile"]),
        ("a backup profile missing from the AWS files", drTarget, ["profile 'dr'"]),
    ])
    func withoutBackupIdentity(_ name: String, target: BucketLocation, named: [String]) throws {
        let environment = [
            "HOME": try Self.home("[default]\naws_access_key_id = AKIDDEF\naws_secret_access_key = secret-def\n[vk-msk]\naws_access_key_id = AKIDVK\naws_secret_access_key = secret-vk\n"),
            "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secret-env",
        ]
        let error = #expect(throws: AWSError.self, "\(name)") { try BackupUpload.resolve(target, environment: environment) }
        let message = error?.description ?? ""
        for text in ["mcloud-shop-db-0123abcd"] + named { #expect(message.contains(text), "\(name): \(message)") }
        #expect(!message.contains("secret"), "\(name)")
    }
}
