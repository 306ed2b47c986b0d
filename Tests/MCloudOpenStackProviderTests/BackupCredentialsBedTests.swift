import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStack
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing
import MCloudOpenStackProvider
import MCloudHTTP

/// A database server with a DR bucket on moto (scripts/testbed/moto.sh), made on the OpenStack test bed
/// (scripts/testbed/openstack.sh): its user data, read back through Nova as the admin, carries the bucket and the
/// backup profile's key, never the deploying keys of mcloud's environment, while what the engine sees and records
/// carries no key. Fails, never skips, without the beds.
@Suite(.serialized) struct BackupCredentialsBedTests {
    /// The two beds, and a provider whose environment holds mcloud's own (deploying) keys, as an operator runs it.
    struct Beds {
        let openstack: TestBedEnvironment
        let moto: TestBedEnvironment
        let environment: [String: String]
        let provider: OpenStackResourceProvider
        let run = UUID().uuidString.prefix(8).lowercased()

        init() throws {
            let directories = ProcessInfo.processInfo.environment
            openstack = try TestBedEnvironment.load(
                directory: directories["MCLOUD_OPENSTACK_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/openstack", start: "scripts/testbed/openstack.sh up"
            )
            moto = try TestBedEnvironment.load(directory: directories["MCLOUD_TESTBED_MOTO_DIR"] ?? "/tmp/mcloud-testbed/moto", start: "scripts/testbed/moto.sh start")
            let config = NSTemporaryDirectory() + "mcloud-bed-backup-\(UUID().uuidString.prefix(8)).config"
            try moto.writeBackupProfile(to: config)
            // IAM is reached at moto's one port, as AWS_ENDPOINT_URL_IAM points an operator's mcloud at an emulator.
            // A server with a DR bucket encrypts its dumps to a key derived from the operator's age identity.
            let keyFile = NSTemporaryDirectory() + "mcloud-bed-age-\(UUID().uuidString.prefix(8)).key"
            try Data(try AgeIdentity(secretKey: [UInt8](repeating: 36, count: 32)).keyFile.utf8).write(to: URL(fileURLWithPath: keyFile))
            environment = [
                "HOME": NSTemporaryDirectory(), "AWS_ACCESS_KEY_ID": moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"],
                "AWS_SECRET_ACCESS_KEY": moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"], "AWS_CONFIG_FILE": config, "AWS_ENDPOINT_URL_IAM": moto["MCLOUD_TEST_MOTO_URL"],
                "MCLOUD_AGE_KEY_FILE": keyFile,
            ]
            let (configFile, cloudName) = (openstack["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"], openstack["MCLOUD_TEST_OS_CLOUD"])
            provider = OpenStackResourceProvider(
                cloud: "bed", environment: environment,
                connect: { () throws(OpenStackError) -> OpenStackSession in
                    try OpenStackSession(cloud: try CloudsYAML.load(cloud: cloudName, environment: ["OS_CLIENT_CONFIG_FILE": configFile]))
                },
                objectStorage: { () throws(AWSError) -> S3Client in throw .configuration("this test makes no bucket") }
            )
        }

        /// IAM on moto, with the deploying keys.
        var iam: IAMClient {
            IAMClient(client: AWSClient(
                configuration: AWSConfiguration(
                    credentials: AWSCredentials(accessKeyID: moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"], secretAccessKey: moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"]),
                    region: "us-east-1", endpointURL: moto["MCLOUD_TEST_MOTO_URL"]
                )
            ))
        }

        /// Makes the IAM user `name` under `path` on moto; what a body's `identity` says of it.
        func identity(_ name: String, path: String) async throws -> JSONValue {
            _ = try await iam.createUser(name: name, path: path)
            return .object([("address", .string("aws.moto.BackupIdentity.\(name)")), ("user", .string(name)), ("deployProfile", .string("mcloud"))])
        }

        var address: ResourceAddress { "openstack.bed.DatabaseServer.dr-\(run).db.0" }
        var bucket: String { "mcloud-dr-\(run)-db" }

        func session(_ cloud: String) throws -> OpenStackSession {
            try OpenStackSession(cloud: try CloudsYAML.load(cloud: openstack[cloud], environment: ["OS_CLIENT_CONFIG_FILE": openstack["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"]]))
        }

        /// A primary with `backup` as its `spec.backup`.
        func server(backup: [(String, JSONValue)]) -> DesiredResource {
            let leg: [(String, JSONValue)] = [("schedule", .string("0 3 * * *")), ("retentionDays", .int(7)), ("cloud", .string("moto")), ("bucket", .string(bucket))]
            return server(("backup", .object(leg + [("region", .string("us-east-1")), ("endpoint", .string(moto["MCLOUD_TEST_MOTO_URL"]))] + backup)))
        }

        /// A server with `field` in its spec.
        func server(_ field: (String, JSONValue)) -> DesiredResource {
            let body: JSONValue = .object([
                ("apiVersion", .string("infrastructure.mcloud.io/v1")), ("kind", .string("DatabaseServer")),
                ("metadata", .object([
                    ("name", .string("dr-\(run).db.0")), ("address", .string(address.rawValue)), ("cloud", .string("bed")), ("provider", .string("openstack")),
                    ("labels", .object([("app.kubernetes.io/part-of", .string("dr-\(run)")), ("mcloud.io/cell", .string("db"))])),
                ])),
                ("spec", .object([
                    ("role", .string("primary")), ("engine", .string("postgresql")), ("version", .string("16")), ("port", .int(5432)),
                    ("flavor", .object([("vcpu", .int(1)), ("memoryGiB", .int(1))])),
                    ("image", .object([("family", .string("debian-12")), ("id", .string(openstack["MCLOUD_TEST_OS_IMAGE_ID"]))])),
                    field,
                ])),
            ])
            return DesiredResource(address: address, provider: "openstack", cloud: "bed", type: "DatabaseServer", body: body, dependencies: [])
        }

        func recorded(_ created: ObservedResource) -> ResourceState {
            ResourceState(
                address: address, provider: "openstack", cloud: "bed", providerID: created.providerID,
                attributes: Dictionary(uniqueKeysWithValues: created.attributes.objectPairs)
            )
        }

        /// The server's user data, read through Nova as the admin.
        func userData(_ id: String) async throws -> String {
            let server = try await session("MCLOUD_TEST_OS_ADMIN_CLOUD").json(
                "compute", .GET, "/servers/\(id)", headers: [("OpenStack-API-Version", "compute 2.3")], operation: "read the user data"
            )
            let encoded = try #require(server["server"]?["OS-EXT-SRV-ATTR:user_data"]?.stringValue)
            return try NovaUserData.text(base64: encoded)
        }

        /// Deletes the server and checks that Nova has it no more.
        func delete(_ recorded: ResourceState) async throws {
            try await provider.delete(recorded)
            let nova = NovaClient(session: try session("MCLOUD_TEST_OS_CLOUD"))
            #expect(try await nova.findServers(tagged: "managed-by:mcloud", metadata: ["mcloud-address": address.rawValue]).isEmpty)
        }
    }

    @Test("a DR database VM gets the backup profile's keys in its user data only, never mcloud's own, and is deleted")
    func credentialsInUserDataOnly() async throws {
        let beds = try Beds()
        let (moto, address, bucket) = (beds.moto, beds.address, beds.bucket)
        let deployingKeyID = moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"], deployingSecret = moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"]
        let (keyID, secret) = moto.backupKeys
        try #require(!keyID.isEmpty && !secret.isEmpty && !deployingKeyID.isEmpty)
        let desired = beds.server(backup: [("profile", .string(TestBedEnvironment.backupProfile))])

        let created = try await beds.provider.create(desired)
        let recorded = beds.recorded(created)
        let refreshed = try await beds.provider.refresh(application: "dr-\(beds.run)", desired: [desired], recorded: [recorded])
        for text in [created.attributes.serialized(pretty: false), recorded.json.serialized(pretty: false)] + refreshed.map({ $0.attributes.serialized(pretty: false) }) {
            #expect(!text.contains(secret))
            #expect(text.contains(bucket))
        }
        #expect(refreshed.map(\.address) == [address])

        let userData = try await beds.userData(created.providerID)
        #expect(userData.contains("MCLOUD_BACKUP_BUCKET='\(bucket)'"))
        #expect(userData.contains("# Written by mcloud for \(address.rawValue): PostgreSQL 16 on Debian 12 (bookworm) from PostgreSQL Global Development Group (PGDG)'s repository, port 5432."))
        #expect(userData.contains("AWS_ACCESS_KEY_ID='\(keyID)'"))
        if moto.hasSeparateBackupUser {
            #expect(!userData.contains(deployingKeyID) && !userData.contains(deployingSecret))
        }
        #expect(userData.contains("MCLOUD_BACKUP_ENDPOINT='\(moto["MCLOUD_TEST_MOTO_URL"])'"))
        #expect(!userData.contains("MCLOUD_BACKUP_WRITE_ONLY='1'"))
        // The dumps are encrypted to the leg's recipient; nothing that decrypts them is on the primary.
        let leg = try DumpEncryption.identity(
            root: SecretRoot(identity: AgeKeyFile.load(environment: beds.environment)), application: "dr-\(beds.run)", server: "dr-\(beds.run).db.0", bucket: bucket
        )
        #expect(userData.contains("MCLOUD_BACKUP_RECIPIENT='\(leg.recipient.encoded)'") && !userData.contains("AGE-SECRET-KEY-"))
        try await beds.delete(recorded)
    }

    /// A server restoring an encrypted dump (a failover's or a drill's) gets the leg's identity, derived from the
    /// operator's key at create time, in its user data's root-only 0600 key file, and in nothing mcloud records.
    @Test func aServerRestoringAnEncryptedDumpGetsTheLegsIdentityInItsUserDataOnly() async throws {
        let beds = try Beds()
        let desired = beds.server(("restore", .object([
            ("cloud", .string("moto")), ("bucket", .string(beds.bucket)), ("region", .string("us-east-1")),
            ("endpoint", .string(beds.moto["MCLOUD_TEST_MOTO_URL"])), ("profile", .string(TestBedEnvironment.backupProfile)),
            ("object", .string("dr-\(beds.run).db.0/20270115T070000Z.sql.gz.age")), ("takenAt", .string("2027-01-15T07:00:00Z")),
        ])))
        let created = try await beds.provider.create(desired)
        let userData = try await beds.userData(created.providerID)
        let recorded = beds.recorded(created)
        try await beds.delete(recorded)
        let leg = try DumpEncryption.identity(
            root: SecretRoot(identity: AgeKeyFile.load(environment: beds.environment)), application: "dr-\(beds.run)", server: "dr-\(beds.run).db.0", bucket: beds.bucket
        )
        #expect(userData.contains("  - path: \(DumpEncryption.identityPath)\n    owner: root:root\n    permissions: \"0600\"\n"))
        #expect(userData.components(separatedBy: leg.encoded).count == 2, "the identity is not in exactly one place of the user data")
        for text in [created.attributes.serialized(pretty: false), recorded.json.serialized(pretty: false)] {
            #expect(!text.contains(leg.encoded) && !text.contains("AGE-SECRET-KEY-"))
        }
    }

    // Issue 32, H2 step 3: a leg on AWS has a user of its own; the VM gets a key minted for it, not a profile's.
    @Test func aVMWhoseLegHasItsOwnUserGetsAFreshKeyOfThatUserAndASecondVMLeavesOneKey() async throws {
        let beds = try Beds()
        let moto = beds.moto
        let iam = beds.iam
        let user = "mcloud-dr-\(beds.run)-db"
        let identity = try await beds.identity(user, path: BucketIdentity.path)
        // The backup profile is there too: the user's key must win over it.
        let desired = beds.server(backup: [("profile", .string(TestBedEnvironment.backupProfile)), ("identity", identity)])

        var keys: [[String]] = []
        for _ in 0..<2 {
            let created = try await beds.provider.create(desired)
            let userData = try await beds.userData(created.providerID)
            let current = try await iam.listAccessKeys(userName: user).map(\.id)
            let recorded = beds.recorded(created)
            // Deleted before the checks, so a failing check leaves no server on the bed.
            try await beds.delete(recorded)
            keys.append(current)
            #expect(current.count == 1 && userData.contains("AWS_ACCESS_KEY_ID='\(current.first ?? "none")'"))
            #expect(userData.contains("MCLOUD_BACKUP_WRITE_ONLY='1'"))
            for other in [moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"], moto.backupKeys.keyID, moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"], moto.backupKeys.secret] {
                #expect(!userData.contains(other))
            }
            let line = userData.split(separator: "\n").first { $0.contains("AWS_SECRET_ACCESS_KEY='") }
            let secret = line?.split(separator: "'").dropFirst().first ?? ""
            #expect(!secret.isEmpty)
            for text in [created.attributes.serialized(pretty: false), recorded.json.serialized(pretty: false)] where !secret.isEmpty {
                #expect(!text.contains(secret))
            }
        }
        #expect(keys.map(\.count) == [1, 1], "IAM allows two keys a user; each VM made leaves only its own")
        #expect(keys[0] != keys[1])
        // No check above throws, so the user is always deleted.

        for key in keys.joined() { try await iam.deleteAccessKey(userName: user, id: key) }
        try await iam.deleteUser(name: user)
    }

    // Issue 32, H2 step 4: a server restoring from a leg on AWS (a drill's scratch server, a failover's new primary)
    // gets a key of the restore user its `spec.restore` names, not the backup profile's nor mcloud's own.
    @Test func aRestoringVMGetsAKeyOfItsRestoreUserOnly() async throws {
        let beds = try Beds()
        let user = "dr-\(beds.run).db.restore-1"
        let (moto, iam, identity) = (beds.moto, beds.iam, try await beds.identity(user, path: BucketIdentity.restorePath))
        let desired = beds.server(("restore", .object([
            ("cloud", .string("moto")), ("bucket", .string(beds.bucket)), ("region", .string("us-east-1")), ("endpoint", .string(moto["MCLOUD_TEST_MOTO_URL"])),
            ("profile", .string(TestBedEnvironment.backupProfile)), ("identity", identity), ("object", .string("dr-\(beds.run).db.0/20270115T070000Z.sql.gz")),
            ("takenAt", .string("2027-01-15T07:00:00Z")),
        ])))

        let created = try await beds.provider.create(desired)
        let userData = try await beds.userData(created.providerID)
        try await beds.delete(beds.recorded(created))
        let keys = try await iam.listAccessKeys(userName: user).map(\.id)
        #expect(keys.count == 1 && userData.contains("AWS_ACCESS_KEY_ID='\(keys.first ?? "none")'"))
        for other in [moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"], moto.backupKeys.keyID, moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"], moto.backupKeys.secret] {
            #expect(!userData.contains(other))
        }
        for key in keys { try await iam.deleteAccessKey(userName: user, id: key) }
        try await iam.deleteUser(name: user)
    }
}
