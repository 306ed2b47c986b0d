import Foundation
import MCloudCore
import MCloudSecrets
import MCloudTestSupport
import Testing
@testable import MCloudDatabaseEngines

/// A switchover order as the command writes it and a member checks it: one line of JSON in a fixed order, signed
/// with the cell's key and verified by OpenSSL as `mcloud-switchover` runs it; which members take orders; and the
/// agent's script through bash and shellcheck.
struct SwitchoverOrderTests {
    static func root(_ seed: UInt8 = 7) throws -> SecretRoot {
        SecretRoot(identity: try AgeIdentity(secretKey: [UInt8](repeating: seed, count: 32)))
    }

    static let order = SwitchoverOrder(
        application: "bank", cell: "ledger@eu", serial: 1_800_000_000, notAfter: 1_800_000_600, primary: "standby_0", target: "standby_1",
        targetHost: "bank.ledger.1", targetPort: 5432, members: ["standby_0", "standby_1"]
    )

    @Test func theOrderIsOneLineOfJSONWithItsKeysInAFixedOrder() {
        #expect(String(decoding: Self.order.document, as: UTF8.self) == """
            {"application":"bank","cell":"ledger@eu","serial":1800000000,"notAfter":1800000600,"primary":"standby_0","target":"standby_1",\
            "targetHost":"bank.ledger.1","targetPort":5432,"members":["standby_0","standby_1"]}

            """)
        var addressed = Self.order
        addressed.targetAddress = "10.0.0.12"
        #expect(String(decoding: addressed.document, as: UTF8.self).contains(#""targetPort":5432,"targetAddress":"10.0.0.12","members""#))
        #expect(SwitchoverOrder.key(owner: "bank.ledger.0") == "bank.ledger.0/control/switchover.json")
        #expect(SwitchoverOrder.stepKey(owner: "bank.ledger.0", serial: 7, member: "standby_1") == "bank.ledger.0/control/7.standby_1.json")
        // The order and the steps sit in the leg beside the backups, and are none.
        for key in [SwitchoverOrder.key(owner: "bank.ledger.0"), SwitchoverOrder.signatureKey(owner: "bank.ledger.0"), "bank.ledger.0/control/7.standby_1.json"] {
            #expect(DatabaseUserData.backupTime(key: key, storedAt: "2026-12-06T10:00:00.000Z") == nil, "\(key)")
        }
    }

    /// `openssl pkeyutl -verify -pubin -rawin`, as the members run it, with the public key their user data holds.
    static func verify(document: [UInt8], signature: String, publicKey: String) async throws -> Bool {
        let folder = NSTemporaryDirectory() + "mcloud-switchover-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(document).write(to: URL(fileURLWithPath: "\(folder)/order.json"))
        try Data(try #require(Data(base64Encoded: signature.trimmingCharacters(in: .newlines)))).write(to: URL(fileURLWithPath: "\(folder)/order.sig"))
        try Data(publicKey.utf8).write(to: URL(fileURLWithPath: "\(folder)/key.pub"))
        let run = try await Command.run(
            "/usr/bin/openssl", ["pkeyutl", "-verify", "-pubin", "-inkey", "\(folder)/key.pub", "-rawin", "-in", "\(folder)/order.json", "-sigfile", "\(folder)/order.sig"]
        )
        return run.succeeded
    }

    @Test(arguments: [
        ("the order as signed", false, false, true), ("the order with another serial", true, false, false), ("the key of another operator", false, true, false),
    ])
    func openSSLAcceptsTheSignatureOnlyOverTheSignedBytesWithTheCellsKey(_ what: String, _ altered: Bool, _ otherRoot: Bool, _ accepted: Bool) async throws {
        let signature = try Self.order.signature(root: Self.root(otherRoot ? 8 : 7))
        var checked = Self.order
        if altered { checked.serial += 1 }
        let key = try SwitchoverKey.publicKeyPEM(root: Self.root(), application: "bank", cell: "ledger@eu")
        #expect(key.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        #expect(try await Self.verify(document: checked.document, signature: signature, publicKey: key) == accepted, "\(what)")
    }

    /// A member of a PostgreSQL cell with standbys that archives gets the agent, its units, the public key and its
    /// member name; one that dumps, or has no standbys, gets none of it.
    @Test(arguments: [(true, true, true), (false, true, false), (true, false, false)])
    func onlyAnArchivingPostgreSQLMemberWithStandbysTakesOrders(_ archives: Bool, _ standbys: Bool, _ takes: Bool) throws {
        var vm = try PostgreSQLArchiveTests.vm()
        if !archives { vm.archive = nil }
        let access = DatabaseAccess(cell: "ledger@eu", names: ["ledger.bank-eu.svc"], clients: [])
        let replication: DatabaseReplication? = standbys ? .standby(name: "standby_1", primary: "bank.ledger.0", port: 5432, cidrs: ["10.0.0.0/8"]) : nil
        vm.access = try ServerAccess.derive(root: Self.root(), application: "bank", server: "bank.ledger.1", engine: .postgresql, access: access, replication: replication)
        let files = DatabaseUserData.files(vm)
        let paths = Set(files.map(\.path))
        let agent = [PostgreSQLSwitchover.publicKeyPath, PostgreSQLSwitchover.script, PostgreSQLSwitchover.serviceUnit, PostgreSQLSwitchover.timerUnit]
        #expect(agent.allSatisfy(paths.contains) == takes)
        let settings = try #require(files.first { $0.path == DatabaseUserData.settingsPath }).content
        #expect(settings.contains("MCLOUD_MEMBER='standby_1'\nMCLOUD_CELL='ledger@eu'\n") == takes, "\(settings)")
        let key = try SwitchoverKey.publicKeyPEM(root: Self.root(), application: "bank", cell: "ledger@eu")
        #expect(files.contains { $0.path == PostgreSQLSwitchover.publicKeyPath && $0.content == key && $0.permissions == "0644" } == takes)
    }

    @Test func bashAndShellcheckAcceptTheAgent() async throws {
        let problems = try await bashLint(PostgreSQLSwitchover.agent)
        #expect(problems == nil, "\(problems ?? "")")
    }
}
