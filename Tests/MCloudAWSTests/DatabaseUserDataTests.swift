import Foundation
@testable import MCloudAWS
@testable import MCloudAWSProvider
import MCloudCore
import Testing

/// The cloud-init script of an EC2 database VM, with and without keys for a DR bucket outside AWS.
struct DatabaseUserDataTests {
    static let body: JSONValue = .object([
        ("kind", .string("DatabaseServer")),
        ("metadata", .object([("address", .string("aws.aws-fra.DatabaseServer.shop.cache.0"))])),
        ("spec", .object([("engine", .string("redis")), ("version", .string("7.2"))])),
    ])
    static let upload = BackupUpload(
        target: .init(cloud: "vk-msk", bucket: "mcloud-shop-cache-0123abcd", region: "ru-msk", endpoint: "https://hb.example.net"),
        credentials: AWSCredentials(accessKeyID: "AKIDVKBACKUP", secretAccessKey: "it's-a-secret")
    )

    @Test(arguments: [false, true])
    func theScriptIsValidBash(withKeys: Bool) throws {
        let script = DatabaseUserData.script(Self.body, upload: withKeys ? Self.upload : nil)
        let file = NSTemporaryDirectory() + "mcloud-userdata-\(UUID().uuidString).sh"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = ["-n", file]
        try bash.run()
        while bash.isRunning { usleep(10_000) }
        #expect(bash.terminationStatus == 0)
    }

    @Test func aBucketOutsideAWSGetsKeysInARootOnlyFileAndItsEndpoint() {
        let script = DatabaseUserData.script(Self.body, upload: Self.upload)
        #expect(script.contains("(umask 077; cat >/etc/mcloud/backup.env <<'ENV'\nAWS_ACCESS_KEY_ID='AKIDVKBACKUP'"))
        #expect(script.contains(#"AWS_SECRET_ACCESS_KEY='it'\''s-a-secret'"#))
        #expect(script.contains(#"--endpoint-url "$MCLOUD_BACKUP_ENDPOINT""#))
        #expect(script.contains("MCLOUD_BACKUP_ENDPOINT='https://hb.example.net'"))
    }

    @Test func aBucketInAWSUsesTheInstanceRoleAndNoKeys() {
        let script = DatabaseUserData.script(Self.body)
        #expect(!script.contains("backup.env") && !script.contains("AWS_SECRET_ACCESS_KEY"))
        #expect(script.contains(#"aws s3 cp - "s3://$bucket/"#))
    }
}
