import Foundation
import MCloudCore
import MCloudSecrets
import MCloudTestSupport
import MCloudYAML
import Testing
@testable import MCloudDatabaseEngines

/// Dumps encrypted with age on the VM (`DumpEncryption`): the primary holds the leg's recipient and no identity, a
/// restoring server holds the identity in one root-only 0600 file and nowhere else, and the scripts encrypt before
/// the upload and decrypt after the SHA-256 check.
struct DumpEncryptionTests {
    static let identity = try! AgeIdentity(secretKey: [UInt8](repeating: 35, count: 32))
    static let root = SecretRoot(identity: identity)

    static func recipe(_ engine: String) throws -> Recipe {
        try #require(EngineCatalog.recipes.first { $0.engine == Engine(named: engine) && $0.family == .debian12 })
    }

    static func keyFolder() throws -> (folder: String, environment: [String: String]) {
        let folder = NSTemporaryDirectory() + "mcloud-dump-age-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(identity.keyFile.utf8).write(to: URL(fileURLWithPath: "\(folder)/age.key"))
        return (folder, ["MCLOUD_AGE_KEY_FILE": "\(folder)/age.key"])
    }

    /// Every engine's primary with a DR bucket: the recipient in its settings, age installed, no identity anywhere.
    @Test(arguments: ["redis", "mariadb", "clickhouse", "mongodb", "postgresql"])
    func aPrimaryHoldsTheLegsRecipientAndNoIdentity(_ engine: String) throws {
        let recipe = try Self.recipe(engine)
        let legIdentity = try DumpEncryption.identity(root: Self.root, application: "shop", server: "shop.db.0", bucket: "mcloud-shop-db-0123abcd")
        var vm = UserDataTests.vm(recipe)
        vm.dumpRecipient = legIdentity.recipient
        let text = DatabaseUserData.render(vm)
        let settings = DatabaseUserData.settings(vm)
        #expect(settings.contains("MCLOUD_BACKUP_RECIPIENT='\(legIdentity.recipient.encoded)'\n"))
        #expect(settings.contains("MCLOUD_PACKAGES='\((recipe.packages + ["awscli", "age"]).joined(separator: " "))'"))
        #expect(!text.contains("AGE-SECRET-KEY-") && !text.contains(legIdentity.encoded))
        #expect(!DatabaseUserData.files(vm).contains { $0.path == DumpEncryption.identityPath })
    }

    /// A failover's or a drill's server: the identity only in the root-only 0600 key file, and age to use it.
    @Test func aRestoringServerHasTheIdentityOnlyInItsRootOnlyKeyFile() throws {
        let legIdentity = try DumpEncryption.identity(root: Self.root, application: "shop", server: "shop.db.0", bucket: "mcloud-shop-db-old")
        var vm = UserDataTests.vm(try Self.recipe("redis"), bucket: false)
        vm.backup = nil
        vm.recoveryPoint = DatabaseVM.RecoveryPoint(
            bucket: DatabaseVM.Bucket(name: "mcloud-shop-db-old", region: "ru-spb", endpoint: "https://s3.old.example"),
            object: "shop.db.0/20261202T030000Z.rdb.age", identity: legIdentity
        )
        let files = try UserDataTests.files(DatabaseUserData.render(vm))
        let key = try #require(files[DumpEncryption.identityPath])
        #expect(key["permissions"]?.scalar?.value == "0600" && key["owner"]?.scalar?.value == "root:root")
        #expect(key["content"]?.scalar?.value == legIdentity.keyFile)
        let holding = DatabaseUserData.files(vm).filter { $0.content.contains(legIdentity.encoded) || $0.content.contains("AGE-SECRET-KEY-") }
        #expect(holding.map(\.path) == [DumpEncryption.identityPath])
        #expect(DatabaseUserData.settings(vm).contains(" age'\n") && !DatabaseUserData.settings(vm).contains("MCLOUD_BACKUP_RECIPIENT"))
        // The identity's text is in no description that could reach a log.
        let described = "\(try #require(vm.recoveryPoint?.identity))"
        #expect(!described.contains("AGE-SECRET-KEY-"))
    }

    /// mcloud derives the primary's recipient and the restoring server's identity from the same operator's key: the
    /// pair matches, an archive's or a plain dump's recovery point gets none, and a server that archives dumps nothing.
    @Test func theSpecDerivesTheRecipientForThePrimaryAndTheIdentityForTheRestore() throws {
        let (folder, environment) = try Self.keyFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let leg = DatabaseVM.Bucket(name: "mcloud-shop-dr", region: "us-east-1", endpoint: "http://127.0.0.1:24566")
        let location = BucketLocation(cloud: "dc-b", bucket: "mcloud-shop-dr", region: "us-east-1", endpoint: "http://127.0.0.1:24566")
        func spec(engine: String = "redis", restore object: String? = nil) -> DatabaseServerSpec {
            DatabaseServerSpec(
                engine: engine, version: "7.0", port: 6380, image: nil, defaultFamily: "debian-12", backup: nil,
                restore: object.map { RecoveryPoint(location: location, object: $0, takenAt: "2026-12-05T22:30:00Z") }
            )
        }
        let redis = try Self.recipe("redis")
        let recipient = try #require(try spec().dumpRecipient(environment: environment, application: "shop", server: "shop.cache.0", recipe: redis, bucket: leg))
        let identity = try #require(try spec(restore: "shop.cache.0/20261205T220000Z.rdb.age").restoreIdentity(environment: environment, application: "shop", bucket: leg))
        #expect(identity.recipient == recipient)
        #expect(try DumpEncryption.identity(root: Self.root, application: "shop", server: "shop.cache.0", bucket: "mcloud-shop-dr") == identity)
        #expect(try spec(restore: "shop.cache.0/20261205T220000Z.rdb").restoreIdentity(environment: environment, application: "shop", bucket: leg) == nil)
        #expect(try spec(restore: "shop.cache.0/g1").restoreIdentity(environment: environment, application: "shop", bucket: leg) == nil)
        #expect(try spec().dumpRecipient(environment: environment, application: "shop", server: "shop.cache.0", recipe: redis, bucket: nil) == nil)
        // Another leg or server: another key.
        let otherLeg = DatabaseVM.Bucket(name: "mcloud-shop-dr2", region: "us-east-1")
        #expect(try spec().dumpRecipient(environment: environment, application: "shop", server: "shop.cache.0", recipe: redis, bucket: otherLeg) != recipient)
        #expect(try spec().dumpRecipient(environment: environment, application: "shop", server: "shop.cache.1", recipe: redis, bucket: leg) != recipient)
        // PostgreSQL over TLS archives (pgBackRest encrypts); over plain HTTP it dumps, and so encrypts its dumps.
        let postgres = try Self.recipe("postgresql")
        let https = DatabaseVM.Bucket(name: "mcloud-shop-dr", region: "us-east-1", endpoint: "https://s3.example.net")
        #expect(try spec(engine: "postgresql").dumpRecipient(environment: environment, application: "shop", server: "shop.db.0", recipe: postgres, bucket: https) == nil)
        #expect(try spec(engine: "postgresql").dumpRecipient(environment: environment, application: "shop", server: "shop.db.0", recipe: postgres, bucket: leg) != nil)
        #expect(throws: SecretsError.self) {
            try spec().dumpRecipient(environment: ["MCLOUD_AGE_KEY_FILE": "/nonexistent/age.key"], application: "shop", server: "shop.cache.0", recipe: redis, bucket: leg)
        }
    }

    struct ProblemCase: Sendable, CustomStringConvertible {
        var engine: String
        var endpoint: String?
        var problem: Bool
        var description: String { "\(engine) \(endpoint ?? "AWS")" }
    }

    /// Without the operator's identity a server that would upload dumps is refused at plan time: it could only
    /// upload plain text or nothing. A PostgreSQL primary that archives is PostgreSQLArchive's to refuse.
    @Test(arguments: [
        ProblemCase(engine: "redis", endpoint: "http://127.0.0.1:24566", problem: true),
        ProblemCase(engine: "mariadb", endpoint: "https://s3.example.net", problem: true),
        ProblemCase(engine: "postgresql", endpoint: "http://127.0.0.1:24566", problem: true),
        ProblemCase(engine: "postgrespro", endpoint: "https://s3.example.net", problem: true),
        ProblemCase(engine: "postgresql", endpoint: "https://s3.example.net", problem: false),
    ])
    func aServerThatDumpsToALegNeedsTheAgeIdentityAtPlanTime(_ test: ProblemCase) throws {
        let location = BucketLocation(cloud: "dc-b", bucket: "bank-dr", region: "us-east-1", endpoint: test.endpoint)
        let backup = BackupSettings(schedule: "0 3 * * *", retentionDays: 7, location: location)
        let missing = DumpEncryption.problems(engine: test.engine, backup: backup, environment: ["MCLOUD_AGE_KEY_FILE": "/nonexistent/age.key"])
        #expect(missing.count == (test.problem ? 1 : 0), "\(missing)")
        #expect(missing.allSatisfy { $0.hasPrefix("its dumps in the DR bucket bank-dr are encrypted to an age key derived from the operator's age identity, which is not available: ") })
        #expect(DumpEncryption.problems(engine: test.engine, backup: BackupSettings(schedule: "0 3 * * *", retentionDays: 7, location: nil), environment: [:]).isEmpty)
        let (folder, environment) = try Self.keyFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(DumpEncryption.problems(engine: test.engine, backup: backup, environment: environment).isEmpty)
    }

    /// The upload takes the ciphertext: age runs after the dump and before the copy, the key and the recorded size and
    /// SHA-256 are those of `<stamp>.<ext>.age`, and without a recipient nothing is uploaded.
    @Test func theBackupEncryptsBeforeItUploadsAndRecordsTheCiphertext() throws {
        let script = DatabaseUserData.backup
        let dump = try #require(script.range(of: "mcloud-engine dump"))
        let encrypt = try #require(script.range(of: #"age -r "$MCLOUD_BACKUP_RECIPIENT" <"$OUT" >"$OUT.age""#))
        let sum = try #require(script.range(of: #"sum=$(sha256sum "$OUT""#))
        let upload = try #require(script.range(of: #"s3 s3 cp --only-show-errors "$OUT""#))
        #expect(dump.upperBound < encrypt.lowerBound && encrypt.upperBound < sum.lowerBound && sum.upperBound < upload.lowerBound)
        #expect(script.contains("key=$MCLOUD_SERVER/$stamp.$MCLOUD_DUMP_EXTENSION.age\n") && script.contains("OUT=$OUT.age\n"))
        #expect(script.contains(#"error="no age recipient to encrypt the dump to (MCLOUD_BACKUP_RECIPIENT); a dump is never uploaded in plain text""#))
        #expect(DumpEncryption.server(ofEncrypted: "shop.db.0/20261205T220000Z.sql.gz.age") == "shop.db.0")
        #expect(DumpEncryption.server(ofEncrypted: "shop.db.0/20261205T220000Z.sql.gz") == nil)
        #expect(DatabaseUserData.backupTime(key: "shop.db.0/20261205T220000Z.sql.gz.age", storedAt: "") == BackupStatus.time("2026-12-05T22:00:00Z"))
    }

    /// The restore checks the object's SHA-256 first, then decrypts an `.age` dump with the key file; a plain one
    /// loads as it is, and a wrong or missing identity is a clear error.
    @Test func theRestoreDecryptsAnAgeDumpAfterTheChecksumAndKeepsPlainDumps() throws {
        let script = DatabaseUserData.restore
        let check = try #require(script.range(of: "its upload recorded $recorded"))
        let decrypt = try #require(script.range(of: #"age -d -i "$identity" -o "$plain" "$IN""#))
        let load = try #require(script.range(of: "mcloud-engine restore"))
        #expect(check.upperBound < decrypt.lowerBound && decrypt.upperBound < load.lowerBound)
        #expect(script.contains("identity=${MCLOUD_RESTORE_IDENTITY:-\(DumpEncryption.identityPath)}"))
        #expect(script.contains("is encrypted with age and this server has no identity to decrypt it"))
        #expect(script.contains("cannot be decrypted with the identity in $identity, which is not the one of this DR leg"))
    }
}
