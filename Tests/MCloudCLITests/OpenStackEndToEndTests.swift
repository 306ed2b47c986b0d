import Foundation
import MCloudAWS
import MCloudOpenStack
import MCloudProvider
import MCloudState
import MCloudTestSupport
import Testing
import MCloudCore
import MCloudHTTP

/// The retail-bank example's OpenStack resources applied to the OpenStack test bed (scripts/testbed/openstack.sh):
/// every catalog cloud's `endpoints.openstack` points at the bed's cloud and `endpoints.objectStorage` at moto
/// (scripts/testbed/moto.sh). The targets cover a VM database with its volume, group and backup schedule (ps-ala),
/// Trove databases with groups and schedules (sel-msk), and their DR buckets (vk-msk); gcore-lux's schedules copy to
/// AWS, which this provider does not make. Fails, never skips, without the beds.
@Suite(.serialized) struct OpenStackEndToEndTests {
    static let targets = ["--target", "openstack.ps-ala.", "--target", "openstack.sel-msk.", "--target", "openstack.vk-msk."]

    @Test("apply creates the database cells, a replan shows no change, drift is restored, destroy leaves nothing")
    func applyReplanDriftDestroy() async throws {
        let bed = try OpenStackBed()
        let apply = await bed.run("apply", ["--auto-approve"])
        #expect(apply.exitCode == 0, "\(apply.stdout)\(apply.stderr)")
        #expect(apply.stdout.contains("Apply complete! Resources: 20 added, 0 changed, 0 replaced, 0 destroyed."), "\(apply.stdout)")
        let state = try #require(try FileStateBackend(path: bed.statePath).read())
        #expect(state.resources.count == 20)

        let session = try bed.session(bed.env["MCLOUD_TEST_OS_CLOUD"] ?? "")
        let nova = NovaClient(session: session)
        let servers = try await nova.findServers(tags: ["managed-by:mcloud", "application:retail-bank"])
        #expect(servers.map(\.name) == ["retail-bank.fx-cache.0"])
        #expect(servers.first?.metadata["backup-schedule"] == "0 3 * * *")
        #expect(servers.first?.attachedVolumeIDs.count == 1)
        let databases = try await TroveClient(session: session).instances().filter { $0.name.hasPrefix("mcloud.retail-bank.") }
        #expect(databases.map(\.name).sorted() == ["accounts-db", "cards-db", "payments-db", "sessions-redis"].map { "mcloud.retail-bank.sel-msk.retail-bank-ru.\($0)" })
        #expect(databases.allSatisfy { $0.status == "ACTIVE" })
        let groups = try await NeutronClient(session: session).securityGroups(tags: ["managed-by:mcloud", "application:retail-bank"])
        #expect(groups.count == 5)
        #expect(try await bed.buckets().count == 4)

        let replan = await bed.run("plan", ["--detailed-exitcode"])
        #expect(replan.exitCode == 0, "\(replan.stdout)\(replan.stderr)")

        // Behind mcloud's back: one ingress rule of the VM's group removed.
        let neutron = NeutronClient(session: session)
        let group = try #require(groups.first { $0.name == "retail-bank.fx-cache" })
        let rule = try #require(try await neutron.securityGroup(group.id).rules.first { $0.direction == "ingress" })
        try await neutron.deleteRule(try #require(rule.id))
        let drift = await bed.run("plan", ["--detailed-exitcode"])
        #expect(drift.exitCode == 2, "\(drift.stdout)\(drift.stderr)")
        #expect(drift.stdout.contains("! spec.ingress changed outside mcloud"), "\(drift.stdout)")
        let restore = await bed.run("apply", ["--auto-approve"])
        #expect(restore.stdout.contains("Apply complete! Resources: 0 added, 1 changed, 0 replaced, 0 destroyed."), "\(restore.stdout)\(restore.stderr)")
        #expect(await bed.run("plan", ["--detailed-exitcode"]).exitCode == 0)

        let destroy = await bed.run("destroy", ["--auto-approve"])
        #expect(destroy.exitCode == 0, "\(destroy.stdout)\(destroy.stderr)")
        #expect(destroy.stdout.contains("Destroy complete! Resources: 0 added, 0 changed, 0 replaced, 20 destroyed."), "\(destroy.stdout)")
        #expect(try await nova.findServers(tags: ["managed-by:mcloud", "application:retail-bank"]).isEmpty)
        #expect(try await CinderClient(session: session).volumes(metadata: ["managed-by": "mcloud", "application": "retail-bank"]).isEmpty)
        #expect(try await neutron.securityGroups(tags: ["managed-by:mcloud", "application:retail-bank"]).isEmpty)
        #expect(try await TroveClient(session: session).instances().filter { $0.name.hasPrefix("mcloud.retail-bank.") }.isEmpty)
        // Trove's own servers live in the service project: the admin sees that they are gone too.
        let admin = NovaClient(session: try bed.session(bed.env["MCLOUD_TEST_OS_ADMIN_CLOUD"] ?? ""))
        let all = try await admin.session.json("compute", .GET, "/servers?all_tenants=1", headers: [("OpenStack-API-Version", "compute 2.52")], operation: "list all servers")
        #expect(!all.serialized(pretty: false).contains("mcloud.retail-bank."))
        #expect(try await bed.buckets().isEmpty)
        #expect(try #require(try FileStateBackend(path: bed.statePath).read()).resources.isEmpty)
    }
}

/// A catalog and state folder for the retail-bank example against the OpenStack and moto test beds.
struct OpenStackBed {
    let folder: String
    let env: [String: String]
    let moto: [String: String]

    static let openstackDirectory = ProcessInfo.processInfo.environment["MCLOUD_OPENSTACK_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/openstack"
    static let motoDirectory = ProcessInfo.processInfo.environment["MCLOUD_TESTBED_MOTO_DIR"] ?? "/tmp/mcloud-testbed/moto"

    init() throws {
        env = try Self.read("\(Self.openstackDirectory)/env", hint: "scripts/testbed/openstack.sh up")
        moto = try Self.read("\(Self.motoDirectory)/env", hint: "scripts/testbed/moto.sh start")
        folder = NSTemporaryDirectory() + "mcloud-openstack-e2e-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: folder + "/providers", withIntermediateDirectories: true)
        let cloud = env["MCLOUD_TEST_OS_CLOUD"] ?? ""
        let storage = moto["MCLOUD_TEST_MOTO_URL"] ?? ""
        let image = env["MCLOUD_TEST_OS_IMAGE_ID"] ?? ""
        for file in try FileManager.default.contentsOfDirectory(atPath: "\(repositoryRoot)/Providers") where file.hasSuffix(".yaml") {
            let lines = try String(contentsOfFile: "\(repositoryRoot)/Providers/\(file)", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map { line in
                if line.contains("openstack: { cloud:") { return "    openstack: { cloud: \(cloud) }" }
                if line.contains("objectStorage: { url:") { return "    objectStorage: { url: \"\(storage)\", backupProfile: \(TestBedEnvironment.backupProfile) }" }
                // The bed's one image; a bed started before it carried os_version would not match the catalog's.
                if line.contains("image: { family:") { return "    image: { family: debian-12, id: \(image) }" }
                return String(line)
            }
            try lines.joined(separator: "\n").write(toFile: "\(folder)/providers/\(file)", atomically: true, encoding: .utf8)
        }
        try TestBedEnvironment.load(directory: Self.motoDirectory, start: "scripts/testbed/moto.sh start").writeBackupProfile(to: "\(folder)/aws-config")
    }

    static func read(_ path: String, hint: String) throws -> [String: String] {
        let data = try #require(FileManager.default.contents(atPath: path), "no test bed: run \(hint) (looked for \(path))")
        var values: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    var statePath: String { "\(folder)/state.json" }

    /// The environment of each run: the bed's clouds.yaml, moto's keys (mcloud's own), the VMs' backup profile, and a
    /// HOME without AWS profiles.
    var environment: [String: String] {
        [
            "NO_COLOR": "1", "HOME": folder, "OS_CLIENT_CONFIG_FILE": env["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"] ?? "",
            "AWS_ACCESS_KEY_ID": moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"] ?? "", "AWS_SECRET_ACCESS_KEY": moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"] ?? "",
            "AWS_CONFIG_FILE": "\(folder)/aws-config",
        ]
    }

    func run(_ command: String, _ arguments: [String]) async -> Run {
        let options = ["-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", "\(folder)/providers", "--state", "file://\(statePath)"]
        return await mcloudRun([command] + options + OpenStackEndToEndTests.targets + arguments, environment: environment)
    }

    func session(_ cloud: String) throws -> OpenStackSession {
        try OpenStackSession(cloud: try CloudsYAML.load(cloud: cloud, environment: ["OS_CLIENT_CONFIG_FILE": env["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"] ?? ""]))
    }

    /// The retail bank's backup buckets in moto.
    func buckets() async throws -> [String] {
        var settings = environment
        settings["AWS_ENDPOINT_URL_S3"] = moto["MCLOUD_TEST_MOTO_URL"]
        settings["AWS_REGION"] = "us-east-1"
        let s3 = S3Client(client: AWSClient(configuration: try AWSConfigurationLoader.load(environment: settings)))
        return try await s3.listBuckets(prefix: "mcloud-retail-bank")
    }
}
