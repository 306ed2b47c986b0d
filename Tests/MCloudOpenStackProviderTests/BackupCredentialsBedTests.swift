import Foundation
import MCloudAWS
import MCloudCore
import MCloudOpenStack
import MCloudProvider
import MCloudTestSupport
import Testing
import MCloudOpenStackProvider
import MCloudHTTP

/// A database server with a DR bucket on moto (scripts/testbed/moto.sh), made on the OpenStack test bed
/// (scripts/testbed/openstack.sh): its user data, read back through Nova as the admin, carries the bucket and the
/// backup profile's key, never the deploying keys of mcloud's environment, while what the engine sees and records
/// carries no key. Fails, never skips, without the beds.
@Suite(.serialized) struct BackupCredentialsBedTests {
    @Test("a DR database VM gets the backup profile's keys in its user data only, never mcloud's own, and is deleted")
    func credentialsInUserDataOnly() async throws {
        let directories = ProcessInfo.processInfo.environment
        let openstack = try TestBedEnvironment.load(
            directory: directories["MCLOUD_OPENSTACK_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/openstack", start: "scripts/testbed/openstack.sh up"
        )
        let moto = try TestBedEnvironment.load(directory: directories["MCLOUD_TESTBED_MOTO_DIR"] ?? "/tmp/mcloud-testbed/moto", start: "scripts/testbed/moto.sh start")
        let configFile = openstack["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"]
        let cloudName = openstack["MCLOUD_TEST_OS_CLOUD"]
        let deployingKeyID = moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"], deployingSecret = moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"]
        let (keyID, secret) = moto.backupKeys
        try #require(!keyID.isEmpty && !secret.isEmpty && !deployingKeyID.isEmpty)
        let config = NSTemporaryDirectory() + "mcloud-bed-backup-\(UUID().uuidString.prefix(8)).config"
        try moto.writeBackupProfile(to: config)
        // mcloud's own keys in the environment, as an operator runs it; the VM must get the backup profile's instead.
        let environment = [
            "HOME": NSTemporaryDirectory(), "AWS_ACCESS_KEY_ID": deployingKeyID, "AWS_SECRET_ACCESS_KEY": deployingSecret, "AWS_CONFIG_FILE": config,
        ]
        let provider = OpenStackResourceProvider(
            cloud: "bed", environment: environment,
            connect: { () throws(OpenStackError) -> OpenStackSession in
                try OpenStackSession(cloud: try CloudsYAML.load(cloud: cloudName, environment: ["OS_CLIENT_CONFIG_FILE": configFile]))
            },
            objectStorage: { () throws(AWSError) -> S3Client in throw .configuration("this test makes no bucket") }
        )
        let run = UUID().uuidString.prefix(8).lowercased()
        let address: ResourceAddress = "openstack.bed.DatabaseServer.dr-\(run).db.0"
        let bucket = "mcloud-dr-\(run)-db"
        let backup: JSONValue = .object([
            ("schedule", .string("0 3 * * *")), ("retentionDays", .int(7)), ("cloud", .string("moto")), ("bucket", .string(bucket)), ("region", .string("us-east-1")),
            ("endpoint", .string(moto["MCLOUD_TEST_MOTO_URL"])), ("profile", .string(TestBedEnvironment.backupProfile)),
        ])
        let body: JSONValue = .object([
            ("apiVersion", .string("infrastructure.mcloud.io/v1")), ("kind", .string("DatabaseServer")),
            ("metadata", .object([
                ("name", .string("dr-\(run).db.0")), ("address", .string(address.rawValue)), ("cloud", .string("bed")), ("provider", .string("openstack")),
                ("labels", .object([("app.kubernetes.io/part-of", .string("dr-\(run)")), ("mcloud.io/cell", .string("db"))])),
            ])),
            ("spec", .object([
                ("role", .string("primary")), ("engine", .string("postgresql")), ("version", .string("16")), ("port", .int(5432)),
                ("flavor", .object([("vcpu", .int(1)), ("memoryGiB", .int(1))])),
                ("image", .object([("family", .string("debian-12")), ("id", .string(openstack["MCLOUD_TEST_OS_IMAGE_ID"]))])), ("backup", backup),
            ])),
        ])
        let desired = DesiredResource(address: address, provider: "openstack", cloud: "bed", type: "DatabaseServer", body: body, dependencies: [])

        let created = try await provider.create(desired)
        let recorded = ResourceState(
            address: address, provider: "openstack", cloud: "bed", providerID: created.providerID,
            attributes: Dictionary(uniqueKeysWithValues: created.attributes.objectPairs)
        )
        let refreshed = try await provider.refresh(application: "dr-\(run)", desired: [desired], recorded: [recorded])
        for text in [created.attributes.serialized(pretty: false), recorded.json.serialized(pretty: false)] + refreshed.map({ $0.attributes.serialized(pretty: false) }) {
            #expect(!text.contains(secret))
            #expect(text.contains(bucket))
        }
        #expect(refreshed.map(\.address) == [address])

        let admin = try OpenStackSession(cloud: try CloudsYAML.load(cloud: openstack["MCLOUD_TEST_OS_ADMIN_CLOUD"], environment: ["OS_CLIENT_CONFIG_FILE": configFile]))
        let server = try await admin.json(
            "compute", .GET, "/servers/\(created.providerID)", headers: [("OpenStack-API-Version", "compute 2.3")], operation: "read the user data"
        )
        let encoded = try #require(server["server"]?["OS-EXT-SRV-ATTR:user_data"]?.stringValue)
        let userData = String(decoding: try #require(Data(base64Encoded: encoded)), as: UTF8.self)
        #expect(userData.contains("MCLOUD_BACKUP_BUCKET='\(bucket)'"))
        #expect(userData.contains("# Written by mcloud for \(address.rawValue): PostgreSQL 16 on Debian 12 (bookworm) from PostgreSQL Global Development Group (PGDG)'s repository, port 5432."))
        #expect(userData.contains("AWS_ACCESS_KEY_ID='\(keyID)'"))
        if moto.hasSeparateBackupUser {
            #expect(!userData.contains(deployingKeyID) && !userData.contains(deployingSecret))
        }
        #expect(userData.contains("MCLOUD_BACKUP_ENDPOINT='\(moto["MCLOUD_TEST_MOTO_URL"])'"))

        try await provider.delete(recorded)
        let nova = NovaClient(session: try OpenStackSession(cloud: try CloudsYAML.load(cloud: cloudName, environment: ["OS_CLIENT_CONFIG_FILE": configFile])))
        #expect(try await nova.findServers(tagged: "managed-by:mcloud", metadata: ["mcloud-address": address.rawValue]).isEmpty)
    }
}
