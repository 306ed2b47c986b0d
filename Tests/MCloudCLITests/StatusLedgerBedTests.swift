import Foundation
import MCloudCore
import MCloudDatabaseEngines
import MCloudHTTP
@testable import MCloudKubernetes
import MCloudOpenStack
import MCloudTestSupport
import Testing

/// `mcloud status` on every bed at once: the ledger with a standby, applied to the OpenStack bed (the database VMs),
/// moto behind its TLS front (the DR leg, where the primary archives continuously) and the Kubernetes bed (the
/// service), whose API server the catalog reaches through a cloud of the network bed (`APILink`). The container bed
/// boots both VMs' user data in another cloud of the network bed, the standby reaching its primary at its private
/// address. Healthy and exit 0 first; then a Deployment below its replicas, the standby stopped, the lab cloud cut off
/// and the primary's backup job stopped each turn the right cell Degraded or the application Unknown with the
/// reason, and exit 2; last, `mcloud switchover` moves the primary to the standby with every row. Fails, never skips, without the beds (openstack.sh up, moto.sh start, container.sh start,
/// network.sh start).
@Suite(.serialized, .timeLimit(.minutes(30))) struct StatusLedgerBedTests {
    static let psql = "runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1"

    @Test func aStandbyStoppedACloudCutAndABackupJobStoppedEachShowInStatus() async throws {
        let network = try NetworkBed.load()
        let seed = UInt32.random(in: 0..<512)
        let clouds = try await network.addClouds(prefix: "st\(seed)", count: 2, seed: seed)
        let (lab, vms) = (clouds[0], clouds[1])
        let server = try URL(string: EngineWorkspace.kubernetesBed()["MCLOUD_TEST_KUBE_SERVER"])
        let link = try await APILink.open(network, cloud: lab, upstream: try #require(server?.port))
        let bed = try LedgerBed(standbys: 1, archives: true, apiServer: link.port)
        let (primary, standby) = ("st-\(bed.run)-0", "st-\(bed.run)-1")
        func cleanUp() async {
            _ = try? await network.cut(lab, false)
            for name in [primary, standby] { await bed.container.destroy(name) }
            _ = await bed.run("destroy", ["--auto-approve"])
            await link.close()
            await network.remove(clouds)
        }
        do {
            try await Self.check(bed, network: network, lab: lab, vms: vms, primary: primary, standby: standby)
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    static func check(_ bed: LedgerBed, network: NetworkBed, lab: NetworkBed.Cloud, vms: NetworkBed.Cloud, primary: String, standby: String) async throws {
        let apply = await bed.run("apply", ["--auto-approve"])
        #expect(apply.exitCode == 0, "\(apply.stdout)\(apply.stderr)")
        let servers = try await bed.servers(application: bed.application)
        let first = try #require(servers.first { $0.name.hasSuffix(".ledger.0") }), second = try #require(servers.first { $0.name.hasSuffix(".ledger.1") })
        // Both boot at once: the primary's set-up commits wait for a standby. The standby finds the primary by its
        // server name, as the cloud's DNS would resolve it.
        let primaryAddress = vms.privateAddress(10)
        try await bed.boot(primary, server: first.id, options: ["--network", vms.name, "--address", primaryAddress], wait: false)
        try await bed.boot(standby, server: second.id, options: ["--network", vms.name, "--address", vms.privateAddress(11)], wait: false)
        _ = try await bed.container.shell(standby, "echo '\(primaryAddress) \(first.name)' >>/etc/hosts")
        for name in [primary, standby] { try await bed.container.wait(name) }
        let streaming = "\(psql) -c 'SELECT application_name, state FROM pg_stat_replication'"
        #expect(try await Self.poll(bed, primary, streaming, until: "standby_1|streaming\n"))
        // What the primary's cron jobs write every minute, written now.
        func report() async throws {
            _ = try await bed.container.shell(primary, "\(ReplicationReport.script); \(PostgreSQLArchive.script) status")
        }
        try await report()

        let status = { (arguments: [String]) in await bed.run("status", ["--timeout", "120", "--detailed-exitcode"] + arguments) }
        try await Self.deployment(bed, ready: 1)
        let healthy = await status([])
        #expect(healthy.exitCode == 0, "\(healthy.stdout)\(healthy.stderr)")
        #expect(healthy.stdout.hasPrefix("Application \(bed.application): Healthy\n"), "\(healthy.stdout)")
        #expect(healthy.stdout.contains("archive's newest point") && healthy.stdout.contains("standby_1 streaming quorum"), "\(healthy.stdout)")

        // The service below its replicas.
        try await Self.deployment(bed, ready: 0)
        let scaled = await status([])
        #expect(scaled.exitCode == 2, "\(scaled.stdout)\(scaled.stderr)")
        #expect(scaled.stdout.hasPrefix("Application \(bed.application): Degraded (api@eu in lab: 0 of 1 replicas ready)\n"), "\(scaled.stdout)")
        try await Self.deployment(bed, ready: 1)

        // The standby stopped: the primary's report misses it.
        _ = try await bed.container.shell(standby, "systemctl stop postgresql@15-main")
        try await report()
        let lost = await status(["--json"])
        #expect(lost.exitCode == 2, "\(lost.stdout)\(lost.stderr)")
        let reasons = try Self.reasons(lost.stdout, cell: "ledger")
        #expect(reasons.contains { $0.contains("0 of 1 standbys of \(first.name) follow it") }, "\(reasons)")
        _ = try await bed.container.shell(standby, "systemctl start postgresql@15-main")
        #expect(try await Self.poll(bed, primary, streaming, until: "standby_1|streaming\n"))
        try await report()
        #expect(await status([]).exitCode == 0)

        // The lab cloud cut off: its API server does not answer within the time-out, and nothing else is held up.
        try await network.cut(lab)
        let cut = await bed.run("status", ["--timeout", "15", "--detailed-exitcode"])
        try await network.cut(lab, false)
        #expect(cut.exitCode == 2, "\(cut.stdout)\(cut.stderr)")
        #expect(cut.stdout.hasPrefix("Application \(bed.application): Unknown ("), "\(cut.stdout)")
        #expect(cut.stdout.contains("  cloud lab is down: no answer within 15 s (--timeout)\n"), "\(cut.stdout)")

        // The backup job stopped (cron, which runs the archive's status and full backups): once its status object is
        // five minutes old, the leg's cell says so.
        _ = try await bed.container.shell(primary, "systemctl stop cron")
        try await report()
        var stale: [String] = []
        for _ in 0..<40 where !stale.contains(where: { $0.contains("the archive status of \(first.name) is") }) {
            try await Task.sleep(for: .seconds(15))
            let run = await status(["--json"])
            stale = run.exitCode == 2 ? try Self.reasons(run.stdout, cell: "ledger") : []
        }
        #expect(stale.contains { $0.contains("the archive status of \(first.name) is") && $0.contains("its status job stopped") }, "\(stale)")

        // A switchover is refused on the primary's report, as old now; with a fresh one the members carry the signed
        // order out through the bucket: the standby is the primary with every row, the old primary follows it, the
        // state records it. The primary reaches the standby by its server name, as the cloud's DNS would resolve it.
        let refused = await bed.run("switchover", ["ledger", "--auto-approve"])
        #expect(refused.exitCode == 1 && refused.stderr.contains("the replication report of ledger is "), "\(refused.stderr)")
        _ = try await bed.container.shell(primary, "echo '\(vms.privateAddress(11)) \(second.name)' >>/etc/hosts")
        _ = try await bed.container.shell(primary, "\(psql) -c 'CREATE TABLE moved (id int)' -c 'INSERT INTO moved SELECT generate_series(1, 20)'")
        try await report()
        let moved = await bed.run("switchover", ["ledger", "--auto-approve", "--timeout", "300"])
        #expect(moved.exitCode == 0, "\(moved.stdout)\(moved.stderr)")
        #expect(try await bed.container.shell(standby, "\(psql) -c 'SELECT pg_is_in_recovery()'") == "f\n")
        #expect(try await bed.container.shell(standby, "\(psql) -c 'SELECT count(*) FROM moved'") == "20\n")
        #expect(try await Self.poll(bed, standby, streaming, until: "standby_0|streaming\n"))
        #expect(try await bed.container.shell(primary, "\(psql) -c 'SELECT pg_is_in_recovery()'") == "t\n")
        let state = try String(contentsOfFile: bed.statePath, encoding: .utf8)
        #expect(state.contains("\"primaries\": {\n    \"\(bed.address("dc-a"))\": \"\(bed.address("dc-a").dropLast(2)).1\"\n  }"), "\(state.prefix(600))")
    }

    /// Every reason the status document gives under `cell`: the cell's, its sites', their databases' and legs'.
    static func reasons(_ json: String, cell: String) throws -> [String] {
        let document = try JSONParser.parse(Array(json.utf8))
        let found = try #require(document["cells"]?.arrayItems.first { $0["name"]?.stringValue == cell }, "no cell \(cell) in \(json)")
        func reasons(_ value: JSONValue) -> [String] {
            (value["reason"]?.stringValue.map { [$0] } ?? []) + value.objectPairs.flatMap { _, child in child.arrayItems.flatMap(reasons) }
        }
        return reasons(found)
    }

    /// Writes the Deployment `api`'s status through the status subresource, as its controller would: every replica
    /// updated, `ready` of them ready.
    static func deployment(_ bed: LedgerBed, ready: Int) async throws {
        let client = try bed.kubernetes
        let namespace = "\(bed.application)-eu"
        let live = try #require(try await client.get(ObjectReference(apiVersion: "apps/v1", kind: "Deployment", namespace: namespace, name: "api")))
        let generation = live.value(at: ["metadata", "generation"])?.intValue ?? 1
        let status = #"{"status": {"observedGeneration": \#(generation), "replicas": 1, "updatedReplicas": 1, "readyReplicas": \#(ready), "availableReplicas": \#(ready)}}"#
        let response = try await client.send(
            .PATCH, "/apis/apps/v1/namespaces/\(namespace)/deployments/api/status", body: Array(status.utf8), contentType: "application/merge-patch+json", operation: "status of api"
        )
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// `command` in `instance` until it prints `expected`, for up to 120 s.
    static func poll(_ bed: LedgerBed, _ instance: String, _ command: String, until expected: String) async throws -> Bool {
        for _ in 0..<120 {
            if (try? await bed.container.shell(instance, command)) == expected { return true }
            try await Task.sleep(for: .seconds(1))
        }
        return false
    }
}
