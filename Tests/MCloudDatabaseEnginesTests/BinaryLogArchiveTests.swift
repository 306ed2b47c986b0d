import Foundation
import MCloudSecrets
import MCloudTestSupport
import Testing
@testable import MCloudDatabaseEngines

/// Which servers ship their binary log into the DR leg, and what their user data holds for it (docs/dr.md, "MariaDB:
/// binary logs"); `MariaDBBinaryLogBedTests` boots it.
struct BinaryLogArchiveTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var series: String
        var bucket = true
        var recipient = true
        var drill = false
        var ships: Bool
    }

    static let cases: [Case] = [
        Case(testDescription: "a MariaDB primary with a leg", series: "10.11", ships: true),
        Case(testDescription: "MariaDB 11.4 from the vendor", series: "11.4", ships: true),
        Case(testDescription: "Oracle MySQL", series: "8.0", ships: false),
        Case(testDescription: "no DR bucket", series: "10.11", bucket: false, ships: false),
        Case(testDescription: "no recipient to encrypt to", series: "10.11", recipient: false, ships: false),
        Case(testDescription: "a drill's scratch server", series: "10.11", drill: true, ships: false),
    ]

    static func vm(_ test: Case) throws -> DatabaseVM {
        let recipe = try #require(EngineCatalog.recipe(engine: "mysql", version: test.series, family: .debian12))
        var vm = UserDataTests.vm(recipe, bucket: test.bucket)
        if test.recipient { vm.dumpRecipient = try AgeIdentity(secretKey: [UInt8](repeating: 7, count: 32)).recipient }
        if test.drill {
            vm.recoveryPoint = DatabaseVM.RecoveryPoint(bucket: DatabaseVM.Bucket(name: "leg", region: "r", endpoint: nil, secrets: []), object: "shop.db.0/x", drill: true)
        }
        return vm
    }

    @Test("who ships its binary log", arguments: cases)
    func whoShips(_ test: Case) throws {
        let vm = try Self.vm(test)
        let paths = DatabaseUserData.files(vm).map(\.path)
        #expect(paths.contains(BinaryLogArchive.script) == test.ships)
        #expect(paths.contains(BinaryLogArchive.timerUnit) == test.ships)
        #expect(DatabaseUserData.settings(vm).contains("MCLOUD_LOG_ARCHIVE='1'") == test.ships)
        // The dump says where in the log it stands only when the log is on.
        #expect(DatabaseUserData.engine(vm.recipe).contains("${MCLOUD_LOG_ARCHIVE:+--master-data=2}") == (test.series != "8.0"))
    }

    @Test func aStandbyShipsNothing() throws {
        let mariadb = try #require(EngineCatalog.recipe(engine: "mysql", version: "10.11", family: .debian12))
        var vm = try ReplicationUserDataTests.vm(mariadb, ReplicationUserDataTests.standby)
        vm.dumpRecipient = try AgeIdentity(secretKey: [UInt8](repeating: 7, count: 32)).recipient
        #expect(!DatabaseUserData.files(vm).map(\.path).contains(BinaryLogArchive.script))
        var primary = try ReplicationUserDataTests.vm(mariadb, ReplicationUserDataTests.primary)
        primary.dumpRecipient = vm.dumpRecipient
        #expect(DatabaseUserData.files(primary).map(\.path).contains(BinaryLogArchive.script))
    }

    @Test func aRestoreToAMomentStopsTheReplayThereInUTC() throws {
        var vm = try Self.vm(Self.cases[0])
        vm.backup = nil
        vm.recoveryPoint = DatabaseVM.RecoveryPoint(
            bucket: DatabaseVM.Bucket(name: "leg", region: "r", endpoint: nil, secrets: []), object: "shop.db.0/20261206T120000Z.sql.gz.age", targetTime: "2026-12-06T12:34:56Z"
        )
        #expect(DatabaseUserData.settings(vm).contains("MCLOUD_RESTORE_STOP_AT='2026-12-06 12:34:56'\n"))
    }

    @Test func theShipperPassesBashAndShellcheck() async throws {
        let path = try UserDataTests.folder() + "/mcloud-binlog"
        try Data(BinaryLogArchive.shipper.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await Command.run("/bin/bash", ["-n", path]).succeeded)
        let lint = try await Command.run("/usr/bin/shellcheck", ["--shell=bash", "--severity=style", path])
        #expect(lint.succeeded, "\(lint.output)")
    }
}
