import Foundation
import MCloudCompression
import MCloudCore
import MCloudHTTP
import MCloudKubernetes
import MCloudOpenStack
import MCloudProvider
import MCloudState
import MCloudTestSupport
import Testing

/// Disaster recovery on the beds, for real: the ledger fixture (a PostgreSQL VM on dc-a with its DR leg on dc-b, the
/// service that uses it on the Kubernetes bed) is applied to the OpenStack bed, whose fake hypervisor runs no VM:
/// the container bed boots the user data of each server the provider made, read back through Nova's API, with the
/// moto bed (every cloud's object storage) in reach. Rows go in, the VM's own backup job takes a backup, and then:
/// a drill is refused outside the EU, restores the rows into a scratch server and leaves nothing; a failover of dc-a killed with SIGKILL halfway and
/// run again makes exactly one new primary on dc-b, which restores the same rows as it boots; the EndpointSlice behind
/// the service's name for the database holds the new server's address; a plan afterwards is clean; `--recovered dc-a`
/// cleans dc-a up.
/// Fails, never skips, without the beds.
@Suite(.serialized, .timeLimit(.minutes(30))) struct FailoverBedTests {
    static let rows = #"runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE accounts (id int PRIMARY KEY, owner text, balance numeric); INSERT INTO accounts SELECT g, md5(g::text), g * 1.5 FROM generate_series(1, 1000) g""#
    static let checksum = #"runuser -u postgres -- psql -X -Atq -c "SELECT count(*) || ':' || md5(string_agg(id || '/' || owner || '/' || balance, ',' ORDER BY id)) FROM accounts""#

    @Test("failover restores the lost primary's rows in another cloud, switches the endpoint, converges after kill -9")
    func failoverRestoresTheRows() async throws {
        let bed = try LedgerBed()
        var booted: [String] = []
        func cleanUp() async {
            for name in booted { await bed.container.destroy(name) }
            _ = await bed.run("apply", ["--recovered", "dc-a", "--auto-approve"])
            _ = await bed.run("destroy", ["--auto-approve"])
        }
        do {
            let apply = await bed.run("apply", ["--auto-approve"])
            #expect(apply.exitCode == 0, "\(apply.stdout)\(apply.stderr)")
            let primary = try #require(try await bed.servers(address: bed.address("dc-a")).first)
            try await bed.expectSlice(naming: bed.address("dc-a"), holding: primary)
            let first = "fo-\(bed.run)-a"
            booted.append(first)
            try await bed.boot(first, server: primary.id)
            try await Self.expectTheAppliedSecretOpens(first, bed)
            _ = try await bed.container.shell(first, Self.rows)
            let written = try await bed.container.shell(first, Self.checksum)
            #expect(written.hasPrefix("1000:"), "\(written)")
            let backup = try await bed.container.shell(first, "mcloud-backup")
            #expect(backup.contains("mcloud-backup: \(bed.application).ledger.0/"), "\(backup)")

            // A drill: refused outside the data's jurisdiction and where the engine cannot run; then for real in the
            // leg's own cloud, with the scratch server booted here as the hypervisor would, and nothing left after.
            let abroad = await bed.run("drill", ["ledger", "--cloud", "us-1"])
            #expect(abroad.exitCode == 1 && abroad.stderr.contains("refused") && abroad.stderr.contains("GDPR art. 44"), "\(abroad.stderr)")
            let storageOnly = await bed.run("drill", ["ledger", "--cloud", "dc-c"])
            #expect(storageOnly.exitCode == 1 && storageOnly.stderr.contains("dc-c cannot run ledger's restore"), "\(storageOnly.stderr)")
            async let drilled = bed.run("drill", ["ledger", "--timeout", "900"])
            let scratch = try await bed.scratchServer()
            let third = "fo-\(bed.run)-d"
            booted.append(third)
            try await bed.boot(third, server: scratch.id)
            #expect(try await bed.container.shell(third, Self.checksum) == written)
            let drill = await drilled
            #expect(drill.exitCode == 0, "\(drill.stdout)\(drill.stderr)")
            #expect(drill.stdout.contains("Restore drill of ledger passed") && drill.stdout.contains("RPO ") && drill.stdout.contains("RTO "), "\(drill.stdout)")
            #expect(try await bed.servers(application: bed.application).filter { $0.name.contains(".drill-") }.isEmpty, "the scratch server is left")
            #expect(try await bed.volumes().filter { $0.name.contains(".drill-") }.isEmpty, "the scratch volume is left")
            await bed.container.destroy(third)

            // Killed while it makes the new primary, then run again: one server, taken over or made once.
            let killed = try EngineEndToEndTests.start(["failover", "dc-a", "--auto-approve", "--parallelism", "1"] + bed.options, environment: bed.environment) {
                $0.contains("DatabaseServer.\(bed.application).ledger.0: Creating...")
            }
            if killed.process.isRunning { kill(killed.process.processIdentifier, SIGKILL) }
            _ = try await EngineEndToEndTests.finish(killed)
            #expect(killed.process.terminationReason == .uncaughtSignal, "the failover finished before it could be killed")
            let lock = try #require(FileManager.default.contents(atPath: bed.statePath + ".lock"))
            let lockID = try #require(try JSONParser.parse(Array(lock))["id"]?.stringValue)
            #expect(await mcloudRun(["state", "force-unlock", lockID, "--state", "file://\(bed.statePath)"]).exitCode == 0)
            let recorded = try #require(try FileStateBackend(path: bed.statePath).read())
            #expect(recorded.lost == ["dc-a"], "the lost cloud is recorded before any change")
            #expect(recorded.retained.map(\.rawValue) == ["openstack.dc-b.BackupBucket.\(bed.application).ledger"])

            let failover = await bed.run("failover", ["dc-a", "--auto-approve"])
            #expect(failover.exitCode == 0, "\(failover.stdout)\(failover.stderr)")
            #expect(failover.stdout.contains("recovery point 20"), "\(failover.stdout)")
            let replacements = try await bed.servers(address: bed.address("dc-b"))
            #expect(replacements.count == 1, "\(replacements.map(\.id))")
            #expect(try await bed.servers(address: bed.address("dc-a")).count == 1, "the lost cloud's server is left as it was")
            let replacement = try #require(replacements.first)
            let userData = try await bed.userData(replacement.id)
            #expect(userData.contains("MCLOUD_RESTORE_OBJECT='\(bed.application).ledger.0/"), "\(userData.prefix(2000))")
            #expect(!userData.contains("MCLOUD_RESTORE_OBJECT='\(bed.application).ledger.0/status.json"))

            let second = "fo-\(bed.run)-b"
            booted.append(second)
            try await bed.boot(second, server: replacement.id)
            #expect(try await bed.container.shell(second, Self.checksum) == written)
            let report = try await bed.container.shell(second, "cat /var/lib/mcloud/restored.json")
            #expect(report.contains(#""error": null"#), "\(report)")

            // The name the pods use stays; the slice behind it now holds the new primary's address.
            let endpoints = try await bed.kubernetes.get(ObjectReference(apiVersion: "v1", kind: "ConfigMap", namespace: "\(bed.application)-eu", name: "api-endpoints"))
            #expect(endpoints?["data"]?["LEDGER_HOST"]?.stringValue == "ledger.\(bed.application)-eu.svc", "\(String(describing: endpoints?["data"]))")
            try await bed.expectSlice(naming: bed.address("dc-b"), holding: replacement)
            let after = await bed.run("plan", ["--detailed-exitcode"])
            #expect(after.exitCode == 0, "\(after.stdout)\(after.stderr)")
            #expect(after.stdout.contains("dc-a: 4 resources kept in the state as they were"), "\(after.stdout)")

            let recovered = await bed.run("apply", ["--recovered", "dc-a", "--auto-approve"])
            #expect(recovered.exitCode == 0 && recovered.stdout.contains("0 added, 0 changed, 0 replaced, 4 destroyed"), "\(recovered.stdout)\(recovered.stderr)")
            #expect(try await bed.servers(address: bed.address("dc-a")).isEmpty)
            #expect(try #require(try FileStateBackend(path: bed.statePath).read()).lost.isEmpty)
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
        #expect(try await bed.servers(application: bed.application).isEmpty)
    }
}

extension FailoverBedTests {
    /// The service's Secret, as `apply` wrote it into the cluster, opens the booted primary: its URI, with the CA
    /// where the pod mounts it, over TLS verified by the connection's name (reached at 127.0.0.1, inside the lab
    /// cluster's egress CIDR); a wrong password is refused; the state holds no value of it.
    static func expectTheAppliedSecretOpens(_ instance: String, _ bed: LedgerBed) async throws {
        let secret = try #require(try await bed.kubernetes.get(ObjectReference(apiVersion: "v1", kind: "Secret", namespace: "\(bed.application)-eu", name: "ledger-api")))
        func value(_ key: String) throws -> String {
            try #require(secret["data"]?[key]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) }, "no \(key)")
        }
        let password = try value("password"), uri = try value("uri")
        #expect(uri.hasPrefix("postgresql://api_eu:\(password)@ledger.\(bed.application)-eu.svc:5432/api_eu?sslmode=verify-full"), "\(uri.replacingOccurrences(of: password, with: "…"))")
        #expect(!(try String(contentsOfFile: bed.statePath, encoding: .utf8)).contains(password))
        _ = try await bed.container.shell(instance, "mkdir -p /etc/mcloud/tls/ledger && printf '%s' '\(try value("ca.crt"))' > /etc/mcloud/tls/ledger/ca.crt")
        let query = "SELECT current_user || '/' || current_database() || '/' || (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid())"
        let connected = try await bed.container.shell(instance, "psql -X -At '\(uri)&hostaddr=127.0.0.1&connect_timeout=10' -c \"\(query)\"")
        #expect(connected.trimmingCharacters(in: .whitespacesAndNewlines) == "api_eu/api_eu/true", "\(connected)")
        let wrong = uri.replacingOccurrences(of: ":\(password)@", with: ":\(password)x@")
        let refused = try await bed.container.exec(instance, ["psql", "-X", "-At", "\(wrong)&hostaddr=127.0.0.1&connect_timeout=10", "-c", "SELECT 1"])
        #expect(!refused.succeeded && refused.stderr.contains("password authentication failed"), "\(refused.stderr)")
    }
}

/// The ledger fixture on the beds, under a name of its own, with the environment every run of mcloud gets.
struct LedgerBed {
    let run = UUID().uuidString.prefix(6).lowercased()
    let application: String
    let folder: String
    let openstack: TestBedEnvironment
    let moto: TestBedEnvironment
    let container: ContainerBed
    let kubeconfig: String

    /// The object storage every cloud's DR buckets are on: moto, or its TLS front (whose CA the VMs and mcloud trust).
    let objectStorage: String
    let archives: Bool

    /// The ledger with `standbys` standbys; `archives` puts the buckets behind moto's TLS front, so PostgreSQL archives
    /// continuously instead of dumping; `apiServer` is the host port the catalog reaches the Kubernetes bed's API
    /// server on (`APILink`), when not directly.
    init(standbys: Int = 0, archives: Bool = false, apiServer: Int? = nil) throws {
        let settings = ProcessInfo.processInfo.environment
        openstack = try TestBedEnvironment.load(directory: settings["MCLOUD_OPENSTACK_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/openstack", start: "scripts/testbed/openstack.sh up")
        moto = try TestBedEnvironment.load(directory: settings["MCLOUD_TESTBED_MOTO_DIR"] ?? "/tmp/mcloud-testbed/moto", start: "scripts/testbed/moto.sh start")
        container = try ContainerBed.load()
        application = "fo-\(run)"
        folder = NSTemporaryDirectory() + "mcloud-\(application)"
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder + "/app", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: folder + "/providers", withIntermediateDirectories: true)
        let bed = try EngineWorkspace.kubernetesBed()["MCLOUD_TEST_KUBECONFIG"]
        if let apiServer {
            let direct = try String(contentsOfFile: bed, encoding: .utf8)
            let linked = direct.replacingOccurrences(of: #"server: https://127\.0\.0\.1:[0-9]+"#, with: "server: https://127.0.0.1:\(apiServer)", options: .regularExpression)
            kubeconfig = "\(folder)/kubeconfig"
            try linked.write(toFile: kubeconfig, atomically: true, encoding: .utf8)
        } else {
            kubeconfig = bed
        }
        self.archives = archives
        objectStorage = moto[archives ? "MCLOUD_TEST_MOTO_TLS_URL" : "MCLOUD_TEST_MOTO_URL"]
        let fixture = "\(fixtures)/failover"
        var app = try String(contentsOfFile: "\(fixture)/app/application.yaml", encoding: .utf8).replacingOccurrences(of: "e2e-ledger", with: application)
        if standbys > 0 { app = app.replacingOccurrences(of: "  scope: global\n", with: "  scope: global\n  standbys: \(standbys)\n") }
        try app.write(toFile: "\(folder)/app/application.yaml", atomically: true, encoding: .utf8)
        var clouds = try String(contentsOfFile: "\(fixture)/providers/clouds.yaml", encoding: .utf8)
        for (placeholder, value) in [
            ("KUBECONFIG_PATH", kubeconfig), ("IMAGE_ID", openstack["MCLOUD_TEST_OS_IMAGE_ID"]), ("OS_CLOUD", openstack["MCLOUD_TEST_OS_CLOUD"]),
            ("MOTO_URL", objectStorage),
        ] {
            clouds = clouds.replacingOccurrences(of: placeholder, with: value)
        }
        try clouds.write(toFile: "\(folder)/providers/clouds.yaml", atomically: true, encoding: .utf8)
        try moto.writeBackupProfile(to: "\(folder)/aws-config")
    }

    var statePath: String { "\(folder)/state.json" }
    var options: [String] { ["-f", "\(folder)/app", "--providers", "\(folder)/providers", "--state", "file://\(statePath)"] }

    /// The bed's clouds.yaml, moto's keys (mcloud's own, for the DR buckets), the VMs' backup profile, and a HOME
    /// without AWS profiles.
    var environment: [String: String] {
        [
            "NO_COLOR": "1", "HOME": folder, "OS_CLIENT_CONFIG_FILE": openstack["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"], "MCLOUD_ALLOWED_KUBECONFIGS": kubeconfig,
            "AWS_ACCESS_KEY_ID": moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"], "AWS_SECRET_ACCESS_KEY": moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"],
            "AWS_CONFIG_FILE": "\(folder)/aws-config",
        ].merging(archives ? ["AWS_CA_BUNDLE": moto["MCLOUD_TEST_MOTO_CA"]] : [:]) { $1 }
    }

    func run(_ command: String, _ arguments: [String] = []) async -> Run {
        await mcloudRun([command] + options + arguments, environment: environment)
    }

    /// The address of the ledger's primary server in `cloud`.
    func address(_ cloud: String) -> String { "openstack.\(cloud).DatabaseServer.\(application).ledger.0" }

    func session(_ cloud: String) throws -> OpenStackSession {
        try OpenStackSession(cloud: try CloudsYAML.load(cloud: cloud, environment: ["OS_CLIENT_CONFIG_FILE": openstack["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"]]))
    }

    /// The Service `ledger` and the EndpointSlice behind it on the API server: the slice names `source` and holds the
    /// IPv4 addresses Nova reports for its server (the 1.20 bed serves slices as v1beta1). The OpenStack bed's
    /// project has no network, so its servers have no address and the slice stays empty there;
    /// `EndpointSliceFillTests` fill it from a provider that reports one.
    func expectSlice(naming source: String, holding server: Server, sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        let namespace = "\(application)-eu"
        let service = try await kubernetes.get(ObjectReference(apiVersion: "v1", kind: "Service", namespace: namespace, name: "ledger"))
        #expect(service?["spec"]?["selector"] == nil && service?["spec"]?["ports"]?.arrayItems.first?["port"]?.intValue == 5432, sourceLocation: sourceLocation)
        let slice = try await kubernetes.get(ObjectReference(apiVersion: "discovery.k8s.io/v1beta1", kind: "EndpointSlice", namespace: namespace, name: "ledger"))
        let body = ResourceBody(try #require(slice, "no EndpointSlice ledger", sourceLocation: sourceLocation))
        #expect(body.endpointSources.map(\.rawValue) == [source], sourceLocation: sourceLocation)
        let addresses = ResourceBody(.object([("kind", .string("EndpointSlice"))])).settingTargetAddresses(server.addresses).targetAddresses
        #expect(body.targetAddresses == addresses, "\(server.addresses) against \(body.targetAddresses)", sourceLocation: sourceLocation)
    }

    /// The live servers mcloud made for `address`.
    func servers(address: String) async throws -> [Server] {
        try await NovaClient(session: session(openstack["MCLOUD_TEST_OS_CLOUD"])).findServers(tagged: "managed-by:mcloud", metadata: ["mcloud-address": address]).filter { !$0.isDeleting }
    }

    func servers(application: String) async throws -> [Server] {
        try await NovaClient(session: session(openstack["MCLOUD_TEST_OS_CLOUD"])).findServers(tags: ["managed-by:mcloud", "application:\(application)"])
            .filter { !$0.isDeleting }
    }

    /// The drill's scratch server, once the drill has made it (within two minutes).
    func scratchServer() async throws -> Server {
        for _ in 0..<240 {
            if let found = try await servers(application: application).first(where: { $0.name.contains(".drill-") && $0.status == "ACTIVE" }) { return found }
            try await Task.sleep(for: .milliseconds(500))
        }
        throw ContainerBed.Failure(description: "the drill made no scratch server within two minutes")
    }

    func volumes() async throws -> [Volume] {
        try await CinderClient(session: session(openstack["MCLOUD_TEST_OS_CLOUD"])).volumes(metadata: ["managed-by": "mcloud", "application": application])
    }

    /// The user data Nova holds for the server: exactly what the provider sent (admin only, microversion 2.3), gzip.
    func rawUserData(_ id: String) async throws -> [UInt8] {
        let answer = try await session(openstack["MCLOUD_TEST_OS_ADMIN_CLOUD"]).json(
            "compute", .GET, "/servers/\(id)", headers: [("OpenStack-API-Version", "compute 2.3")], operation: "read the user data"
        )
        return try NovaUserData.bytes(base64: try #require(answer["server"]?["OS-EXT-SRV-ATTR:user_data"]?.stringValue))
    }

    /// The cloud-config in it, to read.
    func userData(_ id: String) async throws -> String {
        String(decoding: try Gzip.decompress(try await rawUserData(id)), as: UTF8.self)
    }

    /// Boots the server's user data in the container bed with moto in reach, and waits for cloud-init unless told not to.
    func boot(_ name: String, server id: String, options: [String] = [], wait: Bool = true) async throws {
        let port = try #require(URL(string: objectStorage)?.port)
        // The gzip bytes themselves, as the hypervisor hands them over: cloud-init decompresses them.
        try await container.boot(name, userData: try await rawUserData(id), options: ["--reach", String(port)] + options)
        if wait { try await container.wait(name) }
    }

    var kubernetes: KubernetesClient {
        get throws {
            let config = try KubeconfigLoader.load(environment: ["KUBECONFIG": kubeconfig])
            return KubernetesClient(connection: try config.connection(context: "admin-cert"), environment: [:])
        }
    }
}
