import Foundation
import MCloudAWS
import MCloudYAML
import Testing
@testable import MCloudOpenStackProvider

/// The DR keys a database VM gets: resolved from the AWS chain, written only into its cloud-init user data.
struct BackupUploadTests {
    static let target = BackupUpload.Target(
        cloud: "vk-msk", bucket: "mcloud-shop-db-0123abcd", region: "ru-msk", endpoint: "https://s3.example.net"
    )

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var target: BackupUpload.Target
        var environment: [String: String]
        /// The profile files written under the test's HOME.
        var credentialsFile: String = ""
        var keyID: String
        var token: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "keys from the environment, S3-compatible endpoint", target: target,
             environment: ["AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secret-env"], keyID: "AKIDENV"),
        Case(name: "temporary keys keep their session token, AWS's own endpoint", target: .init(cloud: "aws-irl", bucket: "b-1", region: "eu-west-1"),
             environment: ["AWS_ACCESS_KEY_ID": "AKIDTMP", "AWS_SECRET_ACCESS_KEY": "secret-tmp", "AWS_SESSION_TOKEN": "token-tmp"], keyID: "AKIDTMP", token: "token-tmp"),
        Case(name: "the profile named after the bucket's cloud", target: target, environment: [:],
             credentialsFile: "[default]\naws_access_key_id = AKIDDEF\naws_secret_access_key = secret-def\n[vk-msk]\naws_access_key_id = AKIDVK\naws_secret_access_key = secret-vk\n",
             keyID: "AKIDVK"),
        Case(name: "spec.backup.profile wins over the cloud's profile",
             target: .init(cloud: target.cloud, bucket: target.bucket, region: target.region, endpoint: target.endpoint, profile: "dr"), environment: [:],
             credentialsFile: "[vk-msk]\naws_access_key_id = AKIDVK\naws_secret_access_key = secret-vk\n[dr]\naws_access_key_id = AKIDDR\naws_secret_access_key = it's-dr\n",
             keyID: "AKIDDR"),
    ]

    static func home(_ credentials: String) throws -> String {
        let home = NSTemporaryDirectory() + "mcloud-backup-upload-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
        try credentials.write(toFile: home + "/.aws/credentials", atomically: true, encoding: .utf8)
        return home
    }

    static func userData(_ upload: BackupUpload?) throws -> String {
        let recipe = try #require(CloudInit.recipe(engine: "postgresql", version: "16"))
        return CloudInit.userData(address: "openstack.ps-ala.DatabaseServer.shop.db.0", engine: "postgresql", version: "16", port: 5432, recipe: recipe, upload: upload)
    }

    /// The user data parsed as YAML, so a broken indentation fails here rather than on the VM.
    static func files(_ text: String) throws -> [String: YAMLNode] {
        let root = try #require(YAMLReader.read(text, file: "user-data").documents.first?.root)
        let files = try #require(root["write_files"]?.sequence)
        return Dictionary(uniqueKeysWithValues: files.compactMap { file in file["path"]?.scalar.map { ($0.value, file) } })
    }

    @Test("the user data carries the bucket, endpoint and keys in a root-only env file, and the job uploads each dump", arguments: cases)
    func userData(_ test: Case) throws {
        var environment = test.environment
        environment["HOME"] = try Self.home(test.credentialsFile)
        let upload = try BackupUpload.resolve(test.target, environment: environment)
        #expect(upload.credentials.accessKeyID == test.keyID)
        #expect(upload.credentials.sessionToken == test.token)
        let text = try Self.userData(upload)
        let files = try Self.files(text)
        let env = try #require(files["/etc/mcloud/backup.env"])
        #expect(env["permissions"]?.scalar?.value == "0600")
        #expect(env["owner"]?.scalar?.value == "root:root")
        let content = try #require(env["content"]?.scalar?.value)
        #expect(content.contains("AWS_ACCESS_KEY_ID='\(test.keyID)'"))
        #expect(content.contains("AWS_SECRET_ACCESS_KEY=\(BackupUpload.quoted(upload.credentials.secretAccessKey))"))
        #expect(content.contains("AWS_SESSION_TOKEN") == (test.token != nil))
        #expect(content.contains("MCLOUD_BACKUP_BUCKET='\(test.target.bucket)'"))
        #expect(content.contains("AWS_DEFAULT_REGION='\(test.target.region)'"))
        #expect(content.contains("MCLOUD_BACKUP_ENDPOINT") == (test.target.endpoint != nil))
        let job = try #require(files["/usr/local/sbin/mcloud-backup"]?["content"]?.scalar?.value)
        #expect(job.contains(". /etc/mcloud/backup.env"))
        #expect(job.contains("aws s3 cp --only-show-errors \"$OUT\" \"s3://$MCLOUD_BACKUP_BUCKET/shop.db.0/"))
        #expect(job.contains("--endpoint-url") == (test.target.endpoint != nil))
        #expect(text.contains("awscli"))
        #expect(!String(describing: upload).contains(upload.credentials.secretAccessKey))
    }

    @Test("a quoted value stays one shell word: a quote in a secret cannot end it")
    func quoting() {
        #expect(BackupUpload.quoted("it's") == "'it'\\''s'")
    }

    @Test("without a DR bucket the user data has no keys and no upload")
    func withoutUpload() throws {
        let text = try Self.userData(nil)
        #expect(try Self.files(text)["/etc/mcloud/backup.env"] == nil)
        #expect(!text.contains("awscli"))
        #expect(!text.contains("aws s3"))
    }

    @Test("no credentials is an error naming the bucket, the profile and the variables, never a silent skip", arguments: [
        (nil as String?, "profile 'default'"), ("dr", "profile 'dr'"),
    ])
    func missingCredentials(profile: String?, named: String) throws {
        let target = BackupUpload.Target(cloud: Self.target.cloud, bucket: Self.target.bucket, region: "ru-msk", profile: profile)
        let environment = ["HOME": try Self.home("[other]\naws_access_key_id = AKIDOTHER\naws_secret_access_key = secret-other\n")]
        let error = #expect(throws: AWSError.self) { try BackupUpload.resolve(target, environment: environment) }
        let message = error?.description ?? ""
        #expect(message.contains("mcloud-shop-db-0123abcd"))
        #expect(message.contains(named))
        #expect(profile != nil || message.contains("AWS_ACCESS_KEY_ID"))
        #expect(!message.contains("secret-other"))
    }
}
