import Foundation
import MCloudCore
@testable import MCloudCLI
import MCloudDatabaseEngines
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing

/// `mcloud switchover` in-process on a manual clock, against memory clouds whose "members" answer the signed order
/// as `mcloud-switchover` does (the bed test, StandbyBedTests, runs the real agent): the order, its signature, the
/// refusals before anything is written, the state's record of the new primary and the rewired connections.
@Suite struct SwitchoverCommandTests {
    static let owner = "e2e-ledger.ledger.0"
    static let reportKey = "\(owner)/replication.json"
    static let orderKey = "\(owner)/control/switchover.json"

    /// The ledger with `standbys` standbys, archiving into its DR leg over TLS, applied; the primary's report fresh.
    static func lab(state: String? = nil, standbys: Int = 1) async throws -> ClockLab {
        let lab = try ClockLab(state: state)
        let application = "\(lab.folder)/app/application.yaml"
        let text = try String(contentsOfFile: application, encoding: .utf8)
        try text.replacingOccurrences(of: "  backup:\n", with: "  standbys: \(standbys)\n  backup:\n").write(toFile: application, atomically: true, encoding: .utf8)
        let catalog = "\(lab.folder)/providers/clouds.yaml"
        try String(contentsOfFile: catalog, encoding: .utf8).replacingOccurrences(of: "http://127.0.0.1:9", with: "https://127.0.0.1:9")
            .write(toFile: catalog, atomically: true, encoding: .utf8)
        lab.clouds.reportsServerAddresses = true
        try await lab.apply()
        report(lab, server: owner, lag: 0.4)
        return lab
    }

    /// The replication report `server` writes as the primary, `age` seconds before the clock's now.
    static func report(_ lab: ClockLab, server: String, follower: String = "standby_1", lag: Double, state: String = "streaming", age: Int = 20) {
        let at = BackupStatus.text(lab.clock.nowSeconds - age)
        lab.clouds.files[reportKey] = #"{"server": "\#(server)", "at": "\#(at)", "expected": 1, "standbys": [{"name": "\#(follower)", "state": "\#(state)", "sync": "quorum", "lagSeconds": \#(lag), "lagBytes": 0}], "error": null}"#
    }

    static let environment = ["MCLOUD_AGE_KEY_FILE": fixtures + "/age.key"]

    /// The members: each order whose signature is the cell's gets a demote and, unless `promotes` is false, a promote
    /// step, as the agents write them, and each other member `others`' step (with `othersError`); another signature
    /// gets refusals.
    static func members(_ lab: ClockLab, promotes: Bool = true, others: String = "repointed", othersError: String? = nil) throws {
        let root = SecretRoot(identity: try AgeKeyFile.load(environment: environment))
        lab.clouds.agent = { key, clouds in
            guard key == orderKey, let text = clouds.files[key], let document = try? JSONParser.parse(Array(text.utf8)),
                  let serial = document["serial"]?.intValue, let primary = document["primary"]?.stringValue, let target = document["target"]?.stringValue,
                  let signature = clouds.files["\(owner)/control/switchover.sig"] else { return }
            let signed = (try? SwitchoverKey.signature(root: root, application: "e2e-ledger", cell: document["cell"]?.stringValue ?? "", of: Array(text.utf8))) == signature
            let step = { (member: String, name: String, error: String?) in
                let error = error.map { "\"\($0)\"" } ?? "null"
                clouds.files["\(owner)/control/\(serial).\(member).json"] = #"{"member": "\#(member)", "step": "\#(name)", "lsn": "0/5000028", "at": "x", "error": \#(error)}"#
            }
            guard signed else { return step(primary, "refused", nil) }
            step(primary, "demoted", nil)
            guard promotes else { return }
            step(target, "promoted", nil)
            let members = document["members"]?.arrayItems.compactMap(\.stringValue) ?? []
            for member in members where member != primary && member != target { step(member, others, othersError) }
        }
    }

    static func slice(_ lab: ClockLab) -> [String] {
        lab.clouds.stored(in: "lab").filter { $0.0.kind == .endpointSlice }.flatMap { ResourceBody($0.1).targetAddresses }
    }

    /// The state as `mcloud state pull` prints it, from either backend.
    static func primaries(_ lab: ClockLab) async throws -> [String: String] {
        let pulled = await mcloudRun(["state", "pull", "--state", lab.state])
        #expect(pulled.exitCode == 0, "\(pulled.stderr)")
        let state = try State.parse(Array(pulled.stdout.utf8), source: "state pull")
        return Dictionary(uniqueKeysWithValues: state.primaries.map { ($0.key.rawValue, $0.value.rawValue) })
    }

    /// The file backend, and the team backend on the PostgreSQL bed, whose lock is its connection's: the rewiring
    /// writes through the backend that holds it.
    static func stateURL(_ backend: String) throws -> String? {
        guard backend == "postgres" else { return nil }
        let base = try TestBedEnvironment.load(directory: "/tmp/mcloud-testbed/postgres", start: "scripts/testbed/postgres.sh start")["MCLOUD_TEST_POSTGRES_URL"]
        return "\(base)?workspace=switchover-\(UUID().uuidString.prefix(8).lowercased())"
    }

    @Test(arguments: ["file", "postgres"])
    func aSwitchoverSendsASignedOrderRecordsTheNewPrimaryRewiresAndSwitchesBack(backend: String) async throws {
        let lab = try await Self.lab(state: try Self.stateURL(backend))
        try Self.members(lab)
        #expect(Self.slice(lab) == ["10.0.0.10"])
        let run = await lab.run(["switchover", "ledger", "--auto-approve"], environment: Self.environment)
        #expect(run.exitCode == 0, "\(run.stderr)")
        let order = try JSONParser.parse(Array(try #require(lab.clouds.files[Self.orderKey]).utf8))
        let fields = ["primary", "target", "cell", "targetHost", "targetAddress"].map { order[$0]?.stringValue ?? "" }
        #expect(fields == ["standby_0", "standby_1", "ledger", "e2e-ledger.ledger.1", "10.0.0.11"], "\(order)")
        #expect(order["targetPort"]?.intValue == 5432 && order["members"]?.arrayItems.compactMap(\.stringValue) == ["standby_0", "standby_1"], "\(order)")
        #expect(order["notAfter"]?.intValue == (order["serial"]?.intValue ?? 0) + 300, "\(order)")
        #expect(run.stdout.contains("Switchover of ledger: standby_0 (e2e-ledger.ledger.0 in dc-a) -> standby_1 (e2e-ledger.ledger.1 in dc-a), 0 s behind"), "\(run.stdout)")
        #expect(run.stdout.contains("standby_0 demoted at LSN 0/5000028; standby_1 replayed past it and promoted."), "\(run.stdout)")
        #expect(run.stdout.hasSuffix("standby_1 (e2e-ledger.ledger.1 in dc-a) is the primary of ledger; standby_0 follows it.\n"), "\(run.stdout)")
        let first = "openstack.dc-a.DatabaseServer.e2e-ledger.ledger.0"
        #expect(try await Self.primaries(lab) == [first: "openstack.dc-a.DatabaseServer.e2e-ledger.ledger.1"])
        #expect(Self.slice(lab) == ["10.0.0.11"])
        // The rewiring changed the slice and the egress policy that follow the first primary, nothing else.
        #expect(run.stdout.contains("Plan: 0 to create, 2 to update, 0 to replace, 0 to delete."), "\(run.stdout)")
        #expect(run.stdout.contains("~ kubernetes.lab.discovery.k8s.io/v1.EndpointSlice.e2e-ledger-eu.ledger"), "\(run.stdout)")

        // Back: the report is the new primary's now, and the first primary is a standby of it.
        lab.clock.advance(by: 60)
        Self.report(lab, server: "e2e-ledger.ledger.1", follower: "standby_0", lag: 0.2)
        let back = await lab.run(["switchover", "ledger", "--to", "standby_0", "--auto-approve"], environment: Self.environment)
        #expect(back.exitCode == 0, "\(back.stderr)")
        #expect(try await Self.primaries(lab).isEmpty)
        #expect(Self.slice(lab) == ["10.0.0.10"])
    }

    /// A cell of three: the order names every member, the target is the one `--to` names, and the other standby's step
    /// is printed, a failed one as a warning that leaves the switchover standing.
    @Test(arguments: [
        ("repointed", nil, "standby_1 follows standby_2.\n", ""),
        ("failed", "repoint: not streaming from e2e-ledger.ledger.2 in 120 s", "",
         "warning: standby_1 did not follow standby_2 (failed: repoint: not streaming from e2e-ledger.ledger.2 in 120 s); it still streams from standby_0, which follows standby_2; run 'journalctl -u mcloud-switchover' on it\n"),
    ] as [(String, String?, String, String)])
    func aCellOfThreeSwitchesOverAndTheOtherStandbyFollowsOrIsNamed(_ step: String, _ error: String?, _ out: String, _ warning: String) async throws {
        let lab = try await Self.lab(standbys: 2)
        try Self.members(lab, others: step, othersError: error)
        Self.report(lab, server: Self.owner, follower: "standby_2", lag: 0.3)
        let run = await lab.run(["switchover", "ledger", "--to", "standby_2", "--auto-approve"], environment: Self.environment)
        #expect(run.exitCode == 0, "\(run.stderr)")
        let order = try JSONParser.parse(Array(try #require(lab.clouds.files[Self.orderKey]).utf8))
        #expect(order["target"]?.stringValue == "standby_2" && order["members"]?.arrayItems.compactMap(\.stringValue) == ["standby_0", "standby_1", "standby_2"], "\(order)")
        #expect(run.stdout.contains("standby_0 demoted at LSN 0/5000028; standby_2 replayed past it and promoted.\n" + out), "\(run.stdout)")
        #expect(warning.isEmpty ? !run.stderr.contains("warning:") : run.stderr.contains(warning), "\(run.stderr)")
        #expect(try await Self.primaries(lab) == ["openstack.dc-a.DatabaseServer.e2e-ledger.ledger.0": "openstack.dc-a.DatabaseServer.e2e-ledger.ledger.2"])
    }

    /// The report as each case has it: `lag75`, `catchup`, `stale`, `foreign` (another member's), `none`, or fresh.
    static func setUp(_ lab: ClockLab, _ report: String) {
        switch report {
        case "lag75": Self.report(lab, server: owner, lag: 75)
        case "catchup": Self.report(lab, server: owner, lag: 0, state: "catchup")
        case "stale": Self.report(lab, server: owner, lag: 0, age: 400)
        case "foreign": Self.report(lab, server: "e2e-ledger.ledger.1", lag: 0)
        case "none": lab.clouds.files[reportKey] = nil
        default: break
        }
    }

    /// Each is refused before anything is written into the bucket, and the state is as it was.
    @Test(arguments: [
        (["ledgr"], "", "error: the state records no database server of 'ledgr'; did you mean 'ledger'?\n"),
        (["ledger", "--to", "dc-b"], "", "error: --to: ledger has no member 'dc-b'; its members are standby_0 (the primary), standby_1. A primary moves to another cloud only by 'mcloud failover'"),
        (["ledger", "--to", "standby_0"], "", "error: --to: standby_0 (e2e-ledger.ledger.0 in dc-a) is the primary of ledger already; nothing to do\n"),
        (["ledger"], "lag75", "error: refused: standby_1 (e2e-ledger.ledger.1 in dc-a) is 75 s behind the primary (at most 60 s); wait until it catches up\n"),
        (["ledger"], "catchup", "error: refused: standby_1 (e2e-ledger.ledger.1 in dc-a) does not follow the primary in its report of "),
        (["ledger"], "stale", "error: refused: the replication report of ledger is 400 s old; its primary standby_0 (e2e-ledger.ledger.0 in dc-a) is down or cannot reach the bucket"),
        (["ledger"], "foreign", "error: refused: the replication report of ledger is written by e2e-ledger.ledger.1, but the state records standby_0 (e2e-ledger.ledger.0 in dc-a) as its primary"),
        (["ledger"], "none", "error: refused: no replication report at s3://"),
    ])
    func aSwitchoverItCannotDeliverIsRefusedBeforeAnythingIsWritten(arguments: [String], report: String, message: String) async throws {
        let lab = try await Self.lab()
        try Self.members(lab)
        Self.setUp(lab, report)
        let state = try String(contentsOfFile: "\(lab.folder)/state.json", encoding: .utf8)
        let run = await lab.run(["switchover"] + arguments + ["--auto-approve"], environment: Self.environment)
        #expect(run.exitCode == 1)
        #expect(run.stderr.hasPrefix(message), "\(run.stderr)")
        #expect(!lab.clouds.files.keys.contains { $0.contains("/control/") })
        #expect(try String(contentsOfFile: "\(lab.folder)/state.json", encoding: .utf8) == state)
    }

    /// A cell whose leg keeps plain dumps (an `http://` endpoint: pgBackRest reaches S3 over TLS only) has members that
    /// take no orders, and a cell without the operator's identity cannot sign one: both refused.
    @Test func aCellThatDoesNotArchiveAndAnOperatorWithoutTheIdentityAreRefused() async throws {
        let lab = try await Self.lab()
        let missing = await lab.run(["switchover", "ledger", "--auto-approve"], environment: ["MCLOUD_AGE_KEY_FILE": lab.folder + "/none.key"])
        #expect(missing.exitCode == 1 && missing.stderr.hasPrefix("error: refused: the order is signed with a key derived from the operator's age identity, which is not available: no age key file at "), "\(missing.stderr)")
        let catalog = "\(lab.folder)/providers/clouds.yaml"
        try String(contentsOfFile: catalog, encoding: .utf8).replacingOccurrences(of: "https://127.0.0.1:9", with: "http://127.0.0.1:9")
            .write(toFile: catalog, atomically: true, encoding: .utf8)
        #expect(await lab.run(["apply", "--auto-approve"], environment: Self.environment).exitCode == 0)
        let dumps = await lab.run(["switchover", "ledger", "--auto-approve"], environment: Self.environment)
        #expect(dumps.exitCode == 1 && dumps.stderr == "error: refused: ledger does not archive into a DR leg over TLS with keys that may read it, and its members take switchover orders from that bucket only (docs/databases.md, \"Switchover\")\n", "\(dumps.stderr)")
    }

    /// An order signed with another key is refused by the members; a target that never promotes times out: neither
    /// changes the state, and each says where the cell stands.
    @Test func aRefusedOrderAndATargetThatNeverPromotesLeaveTheStateAsItWas() async throws {
        let lab = try await Self.lab()
        try Self.members(lab, promotes: false)
        let state = try String(contentsOfFile: "\(lab.folder)/state.json", encoding: .utf8)
        let stalled = await lab.run(["switchover", "ledger", "--auto-approve", "--timeout", "60"], environment: Self.environment)
        #expect(stalled.exitCode == 1)
        #expect(stalled.stderr.hasPrefix("error: no switchover within 60 s (--timeout): standby_0 (e2e-ledger.ledger.0 in dc-a) demoted at LSN 0/5000028 but standby_1 (e2e-ledger.ledger.1 in dc-a) has not promoted"), "\(stalled.stderr)")
        #expect(try String(contentsOfFile: "\(lab.folder)/state.json", encoding: .utf8) == state)

        let other = "\(lab.folder)/other.key"
        try AgeIdentity(secretKey: [UInt8](repeating: 99, count: 32)).keyFile.write(toFile: other, atomically: true, encoding: .utf8)
        Self.report(lab, server: Self.owner, lag: 0.4)
        let forged = await lab.run(["switchover", "ledger", "--auto-approve"], environment: ["MCLOUD_AGE_KEY_FILE": other])
        #expect(forged.exitCode == 1)
        #expect(forged.stderr.hasPrefix("error: standby_0 (e2e-ledger.ledger.0 in dc-a) did not demote (refused): no reason given; it is still the primary"), "\(forged.stderr)")
        #expect(try String(contentsOfFile: "\(lab.folder)/state.json", encoding: .utf8) == state)
    }
}
