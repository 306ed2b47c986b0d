import Foundation
import MCloudAWS
import MCloudCore
import MCloudCrypto
import MCloudDatabaseEngines
import MCloudHTTP
import MCloudOpenStack
import MCloudOpenStackProvider
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing

/// Every engine Debian 12 ships, booted for real: the OpenStack provider creates the volume and the database server
/// on the OpenStack bed, the test reads the user data back through Nova's API (what the provider sent) and boots it
/// twice in the container bed with the moto bed's S3 reachable. The first instance must come up with the engine on
/// the spec's port, its data on the second disk and the metadata address refused to every user but root; known rows
/// go in, one backup runs, and the object must reach the DR bucket encrypted with age (`<stamp>.<ext>.age`) with
/// the size and SHA-256 the status object records. The second, fresh instance, given the leg's identity, restores
/// it with the catalog's restore command and must hold the same rows. The bucket's secret key may appear only in root-only
/// files. Fails, never skips, without the beds (openstack.sh up, moto.sh start, container.sh start).
@Suite(.timeLimit(.minutes(30))) struct DatabaseVMBedTests {
    typealias Case = EngineSample

    static let cases = EngineSample.debian12

    @Test("boots from the provider's user data, backs up to the other cloud's bucket, restores in a fresh instance", arguments: cases)
    func bootBackupRestore(_ test: Case) async throws {
        let beds = try Beds()
        let run = UUID().uuidString.prefix(8).lowercased()
        let bucket = "mcloud-vm-\(test.engine)-\(run)"
        try await beds.s3.ensureBucket(.init(name: bucket, expireAfterDays: 7, noncurrentExpireAfterDays: 7))
        let server = "vm-\(run).\(test.engine).0"
        let volume = try await beds.provider.create(beds.volume("openstack.bed.Volume.\(server)", name: server))
        let address: ResourceAddress = "openstack.bed.DatabaseServer.\(server)"
        let desired = beds.server(address, name: server, test: test, bucket: bucket, volume: "openstack.bed.Volume.\(server)")
        let created = try await beds.provider.create(desired)
        let first = "vm-\(test.engine)-\(run)-a", second = "vm-\(test.engine)-\(run)-b"
        // Everything the test made goes, whether it passed or not.
        func cleanUp() async throws {
            await beds.container.destroy(first)
            await beds.container.destroy(second)
            try await beds.provider.delete(beds.recorded(created, desired))
            try await beds.provider.delete(beds.recorded(volume, beds.volume("openstack.bed.Volume.\(server)", name: server)))
            try await beds.s3.deleteBucket(bucket)
        }
        do {
            let userData = try await beds.userData(ofServer: created.providerID)
            #expect(userData.hasPrefix("#cloud-config\n"))
            #expect(!created.attributes.serialized(pretty: false).contains(beds.secret))

            // Both instances boot at once; the second waits for the backup before it restores.
            async let booted: Void = beds.container.boot(first, userData: userData, options: ["--reach", "24566", "--publish", String(test.port)])
            async let bootedToo: Void = beds.container.boot(second, userData: userData, options: ["--reach", "24566"])
            _ = try await (booted, bootedToo)
            async let ready: Void = beds.container.wait(first)
            async let readyToo: Void = beds.container.wait(second)
            _ = try await (ready, readyToo)

            let recipe = try #require(EngineCatalog.recipe(engine: test.engine, version: test.version, family: .debian12))
            #expect(recipe.proof == .bed)
            // The engine answers on the spec's port, from inside and through the published port.
            _ = try await beds.container.shell(first, "mcloud-engine ready && ss -Htln 'sport = :\(test.port)' | grep -q LISTEN")
            let hostPort = try await beds.container.port(first, test.port)
            #expect(try await Self.connects(port: hostPort), "nothing answers on \(hostPort), published from \(test.port)")
            // Its data directory is on the second disk, mounted where the recipe says.
            let mount = try await beds.container.shell(first, "findmnt -n -o SOURCE,TARGET --target \(recipe.dataDirectory)").split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            #expect(mount.count == 2 && mount[0] != "overlay" && mount[1].trimmingCharacters(in: .whitespacesAndNewlines) == recipe.mountPoint, "\(mount)")
            #expect(try await beds.container.shell(first, "test -b \(mount.first ?? "/") && echo disk") == "disk\n")
            // Once cloud-init has read the user data, the metadata address is refused to every user but root (docs/security.md,
            // H2): the kernel answers a non-root connect with "Permission denied"; root gets the container's own answer.
            let probe = "timeout 5 bash -c 'exec 3<>/dev/tcp/169.254.169.254/80' 2>&1 | sed 's/.*: //' || true"
            let nobody = try await beds.container.shell(first, "runuser -u nobody -- bash -c \"\(probe)\"")
            let root = try await beds.container.shell(first, probe)
            #expect(nobody.contains("Permission denied") && !root.contains("Permission denied"), "nobody: \(nobody) root: \(root)")

            _ = try await beds.container.shell(first, test.write)
            let written = try await beds.container.shell(first, test.checksum)
            #expect(!written.isEmpty)
            let backup = try await beds.container.shell(first, "mcloud-backup")
            #expect(backup.contains("mcloud-backup: \(server)/"), "\(backup)")

            // The object and its status: the recorded size and SHA-256 are those of the bytes in the bucket.
            let statusBytes = try #require(try await beds.s3.objectIfExists(bucket: bucket, key: DatabaseUserData.statusKey(server: server)))
            let status = try #require(BackupStatus(json: String(decoding: statusBytes, as: UTF8.self)))
            #expect(status.error == nil && status.lastSuccess != nil && status.lastSuccess == status.lastAttempt, "\(status)")
            let object = try #require(status.object)
            #expect(object.hasPrefix("\(server)/") && object.hasSuffix(".\(recipe.dumpExtension).age"))
            let head = try #require(try await beds.s3.headObject(bucket: bucket, key: object))
            let bytes = try await beds.s3.getObject(bucket: bucket, key: object)
            let sha256 = SHA2.sha256(bytes).map { String(format: "%02x", $0) }.joined()
            #expect(head.metadata["sha256"] == sha256 && status.sha256 == sha256)
            #expect(head.size == bytes.count && status.size == bytes.count && head.metadata["size"] == String(bytes.count))
            #expect(bytes.starts(with: Array(DumpEncryption.header.utf8)), "the dump left the VM in plain text")
            let done = try #require(status.lastSuccess)
            #expect(BackupHealth.problem(server: server, status: status, schedule: "* * * * *", now: done, grace: 0) == nil)
            #expect(BackupHealth.problem(server: server, status: status, schedule: "* * * * *", now: done + 120, grace: 0)?.hasPrefix("backups stopped: the last success was at") == true)

            // The second, fresh instance: the newest backup the status names, restored with the catalog's command.
            let before = try await beds.container.exec(second, ["bash", "-c", test.checksum])
            #expect(!before.succeeded || before.stdout != written, "the second instance starts without the rows")
            // The leg's identity, derived as mcloud derives it for a failover's server, in the root-only key file.
            let identity = try beds.dumpIdentity(server: server, bucket: bucket)
            _ = try await beds.container.shell(second, "umask 077 && printf '%s' \(DatabaseUserData.quoted(identity.keyFile)) >\(DumpEncryption.identityPath)")
            let restored = try await beds.container.shell(second, "mcloud-restore")
            #expect(restored.contains("restored s3://\(bucket)/\(object)"), "\(restored)")
            #expect(try await beds.container.shell(second, test.checksum) == written)

            // Retention: with 0 days, a second run keeps its own backup and deletes the first. MariaDB's shipped binary
            // logs (`binlog/`, every 30 s once the position moved) are not dumps and are left out of the count.
            _ = try await beds.container.shell(first, "sed -i \"s/^MCLOUD_RETENTION_DAYS=.*/MCLOUD_RETENTION_DAYS='0'/\" /etc/mcloud/database.conf && sleep 1 && mcloud-backup")
            let kept = try await beds.s3.listObjects(bucket: bucket, prefix: "\(server)/").filter { !$0.hasPrefix("\(server)/binlog/") }
            #expect(kept.count == 2 && kept.contains(DatabaseUserData.statusKey(server: server)) && !kept.contains(object), "\(kept)")

            for instance in [first, second] { try Self.expectSecretOnlyInRootOnlyFiles(beds.secret, in: beds.container.upper(instance)) }
        } catch {
            await beds.container.printCloudInitOutput([first, second])
            try await cleanUp()
            throw error
        }
        try await cleanUp()
    }

    /// A TCP connection to 127.0.0.1:`port` that the far end does not close at once (the bed's forwarder accepts
    /// and closes while nothing listens inside): bash's `read` ends 1 at end of file, above 128 when it times out
    /// on a connection that stays open, 0 when the server speaks first (MariaDB greets).
    static func connects(port: Int) async throws -> Bool {
        let probe = try await Command.run("/bin/bash", ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(port) || exit 1; read -r -t 1 -N 1 <&3; rc=$?; [ $rc -eq 0 ] || [ $rc -gt 128 ]"])
        return probe.succeeded
    }

    /// Every file of the instance that holds the secret is root's and readable by root alone, and none is a log.
    static func expectSecretOnlyInRootOnlyFiles(_ secret: String, in upper: String) throws {
        let holding = filesHolding(secret, in: upper)
        #expect(holding.contains("etc/mcloud/backup.env"), "\(holding)")
        #expect(holding.allSatisfy { $0 == "etc/mcloud/backup.env" || $0.hasPrefix("var/lib/cloud/") }, "\(holding)")
    }

    /// The files of the instance (paths under `upper`) that hold `secret`, each expected to be root's, readable by root
    /// alone, and no log.
    static func filesHolding(_ secret: String, in upper: String) -> [String] {
        let needle = Data(secret.utf8)
        var holding: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: upper)
        while let relative = enumerator?.nextObject() as? String {
            let path = "\(upper)/\(relative)"
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size < 64 << 20,
                  let data = FileManager.default.contents(atPath: path), data.range(of: needle) != nil else { continue }
            holding.append(relative)
            #expect(info.st_uid == 0 && info.st_mode & 0o077 == 0, "\(relative) holds the secret and is mode \(String(info.st_mode & 0o777, radix: 8))")
            #expect(!relative.hasPrefix("var/log/"), "\(relative) is a log holding the secret")
        }
        return holding
    }
}

/// The three beds and what the test makes on them.
struct Beds {
    let openstack: TestBedEnvironment
    let moto: TestBedEnvironment
    let container: ContainerBed
    let provider: OpenStackResourceProvider
    let s3: S3Client
    /// The secret of the backup identity the VMs get (the catalog's backup profile), not the deploying one.
    var secret: String { moto.backupKeys.secret }

    /// The provider's environment: where the operator's age identity is found among the rest.
    let environment: [String: String]

    /// `extra` goes into the provider's environment: the age key file of a server with clients. Without one there,
    /// the beds' own identity (seed 36): every server with a DR bucket encrypts its dumps to a key derived from it.
    init(extra: [String: String] = [:]) throws {
        let environment = ProcessInfo.processInfo.environment
        openstack = try TestBedEnvironment.load(directory: environment["MCLOUD_OPENSTACK_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/openstack", start: "scripts/testbed/openstack.sh up")
        moto = try TestBedEnvironment.load(directory: environment["MCLOUD_TESTBED_MOTO_DIR"] ?? "/tmp/mcloud-testbed/moto", start: "scripts/testbed/moto.sh start")
        container = try ContainerBed.load()
        let configFile = openstack["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"], cloudName = openstack["MCLOUD_TEST_OS_CLOUD"]
        let keys = ["HOME": NSTemporaryDirectory(), "AWS_ACCESS_KEY_ID": moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"], "AWS_SECRET_ACCESS_KEY": moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"]]
        // The VMs' keys come from the backup profile in this file, never from the deploying keys above.
        let config = NSTemporaryDirectory() + "mcloud-bed-backup-\(UUID().uuidString.prefix(8)).config"
        try moto.writeBackupProfile(to: config)
        var providerEnvironment = keys.merging(["AWS_CONFIG_FILE": config]) { _, new in new }.merging(extra) { _, new in new }
        if providerEnvironment["MCLOUD_AGE_KEY_FILE"] == nil {
            let keyFile = NSTemporaryDirectory() + "mcloud-bed-age-\(UUID().uuidString.prefix(8)).key"
            try Data(try AgeIdentity(secretKey: [UInt8](repeating: 36, count: 32)).keyFile.utf8).write(to: URL(fileURLWithPath: keyFile))
            providerEnvironment["MCLOUD_AGE_KEY_FILE"] = keyFile
        }
        self.environment = providerEnvironment
        provider = OpenStackResourceProvider(
            cloud: "bed", environment: providerEnvironment,
            connect: { () throws(OpenStackError) -> OpenStackSession in
                try OpenStackSession(cloud: try CloudsYAML.load(cloud: cloudName, environment: ["OS_CLIENT_CONFIG_FILE": configFile]))
            },
            objectStorage: { () throws(AWSError) -> S3Client in throw .configuration("the DR bucket is made by the test") }
        )
        var settings = keys
        settings["AWS_ENDPOINT_URL_S3"] = moto["MCLOUD_TEST_MOTO_URL"]
        settings["AWS_REGION"] = "us-east-1"
        s3 = S3Client(client: AWSClient(configuration: try AWSConfigurationLoader.load(environment: settings)))
    }

    /// The identity of `server`'s dumps in `bucket`, from the provider's age identity, as mcloud gives a restoring
    /// server; the application is the server name's first part, as `metadata` labels it.
    func dumpIdentity(server: String, bucket: String) throws -> AgeIdentity {
        let root = SecretRoot(identity: try AgeKeyFile.load(environment: environment))
        return try DumpEncryption.identity(root: root, application: String(server.split(separator: ".")[0]), server: server, bucket: bucket)
    }

    static func metadata(_ address: String, name: String, kind: String) -> JSONValue {
        .object([
            ("name", .string(name)), ("address", .string(address)), ("cloud", .string("bed")), ("provider", .string("openstack")),
            ("labels", .object([("app.kubernetes.io/part-of", .string(String(name.split(separator: ".")[0]))), ("mcloud.io/cell", .string(kind))])),
        ])
    }

    func volume(_ address: String, name: String) -> DesiredResource {
        let body: JSONValue = .object([
            ("apiVersion", .string("infrastructure.mcloud.io/v1")), ("kind", .string("Volume")), ("metadata", Self.metadata(address, name: name, kind: "db")),
            ("spec", .object([("sizeGiB", .int(1))])),
        ])
        return DesiredResource(address: ResourceAddress(address), provider: "openstack", cloud: "bed", type: "Volume", body: body, dependencies: [])
    }

    /// A DatabaseServer as the rendering makes one for a cell with a DR leg in another cloud (moto).
    func server(
        _ address: ResourceAddress, name: String, test: DatabaseVMBedTests.Case, bucket: String, volume: String, access: DatabaseAccess? = nil,
        endpoint: String? = nil
    ) -> DesiredResource {
        let backup: JSONValue = .object([
            // A schedule that does not fire while the test runs: the test runs the backup itself.
            ("schedule", .string("0 0 1 1 *")), ("retentionDays", .int(7)), ("cloud", .string("moto")), ("bucket", .string(bucket)),
            ("region", .string("us-east-1")), ("endpoint", .string(endpoint ?? moto["MCLOUD_TEST_MOTO_URL"])), ("profile", .string(TestBedEnvironment.backupProfile)),
        ])
        let body: JSONValue = .object([
            ("apiVersion", .string("infrastructure.mcloud.io/v1")), ("kind", .string("DatabaseServer")), ("metadata", Self.metadata(address.rawValue, name: name, kind: "db")),
            ("spec", .object([
                ("role", .string("primary")), ("engine", .string(test.engine)), ("version", .string(test.version)), ("port", .int(test.port)),
                ("flavor", .object([("vcpu", .int(1)), ("memoryGiB", .int(1))])),
                ("image", .object([("family", .string("debian-12")), ("id", .string(openstack["MCLOUD_TEST_OS_IMAGE_ID"]))])),
                ("volume", .string(volume)), ("backup", backup),
            ] + (access.map { [ResourceBody.DatabaseServerField.access($0)] } ?? []))),
        ])
        return DesiredResource(address: address, provider: "openstack", cloud: "bed", type: "DatabaseServer", body: body, dependencies: [ResourceAddress(volume)])
    }

    /// A primary the provider made for `test`, with its volume and a fresh bucket on moto for its DR leg: where a bed
    /// test of a VM's own jobs starts. `remove` deletes the three.
    struct Primary {
        let bucket: String
        let volume: (desired: DesiredResource, observed: ObservedResource)
        let server: (desired: DesiredResource, observed: ObservedResource)
    }

    func makePrimary(_ server: String, test: DatabaseVMBedTests.Case, bucket: String, endpoint: String? = nil) async throws -> Primary {
        try await s3.ensureBucket(.init(name: bucket, expireAfterDays: 7, noncurrentExpireAfterDays: 7))
        let volumeAddress = "openstack.bed.Volume.\(server)"
        let volume = self.volume(volumeAddress, name: server)
        let madeVolume = try await provider.create(volume)
        let desired = self.server("openstack.bed.DatabaseServer.\(server)", name: server, test: test, bucket: bucket, volume: volumeAddress, endpoint: endpoint)
        return Primary(bucket: bucket, volume: (volume, madeVolume), server: (desired, try await provider.create(desired)))
    }

    /// Destroys the containers, then deletes what `makePrimary` made.
    func remove(_ primary: Primary, containers: [String]) async throws {
        for name in containers { await container.destroy(name) }
        try await provider.delete(recorded(primary.server.observed, primary.server.desired))
        try await provider.delete(recorded(primary.volume.observed, primary.volume.desired))
        try await s3.deleteBucket(primary.bucket)
    }

    func recorded(_ observed: ObservedResource, _ desired: DesiredResource) -> ResourceState {
        ResourceState(
            address: desired.address, provider: "openstack", cloud: "bed", providerID: observed.providerID,
            attributes: Dictionary(uniqueKeysWithValues: observed.attributes.objectPairs)
        )
    }

    /// The user data Nova holds for the server: exactly what the provider sent (admin only, microversion 2.3).
    func userData(ofServer id: String) async throws -> String {
        let admin = try OpenStackSession(cloud: try CloudsYAML.load(cloud: openstack["MCLOUD_TEST_OS_ADMIN_CLOUD"], environment: ["OS_CLIENT_CONFIG_FILE": openstack["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"]]))
        let answer = try await admin.json("compute", .GET, "/servers/\(id)", headers: [("OpenStack-API-Version", "compute 2.3")], operation: "read the user data")
        let encoded = try #require(answer["server"]?["OS-EXT-SRV-ATTR:user_data"]?.stringValue)
        return try NovaUserData.text(base64: encoded)
    }
}
