import MCloudCore
import MCloudDatabaseEngines
import MCloudEngine
import MCloudProvider
import Testing
@testable import MCloudCLI

/// `--to TIME` of drill and failover: RFC 3339 in whole seconds with its offset, read as UTC; anything else is a usage
/// error that names the value, with exit code 1, before anything is read.
struct RecoveryTargetTests {
    @Test(arguments: [
        ("2026-12-05T22:27:00Z", "2026-12-05T22:27:00Z"),
        ("2026-12-06T01:27:00+03:00", "2026-12-05T22:27:00Z"),
        ("2026-12-05t19:57:00-02:30", "2026-12-05T22:27:00Z"),
        ("2027-01-01T00:30:00+01:00", "2026-12-31T23:30:00Z"),
    ])
    func anRFC3339TimeIsReadAsUTC(_ text: String, _ utc: String) throws {
        let seconds = try #require(RecoveryTarget.seconds(text))
        #expect(BackupStatus.text(seconds) == utc)
    }

    @Test(arguments: [
        "yesterday", "2026-12-05T22:27:00", "2026-12-05 22:27:00Z", "2026-12-05T22:27:00.5Z", "2026-13-05T22:27:00Z", "2026-12-05T24:00:00Z",
        "2026-12-05T22:27:00+3:00", "2026-12-05T22:27:00++3:00", "2026-12-05T22:27:00+03:60", "",
    ])
    func aTimeThatIsNotRFC3339IsAClearErrorAndExit1(_ text: String) async {
        #expect(RecoveryTarget.seconds(text) == nil)
        for command in [["failover", "dc-a"], ["drill", "ledger"]] {
            let run = await mcloudRun(command + ["--to", text])
            #expect(run.exitCode == 1, "\(command): \(run.stderr)")
            #expect(run.stderr.hasPrefix("error: --to must be an RFC 3339 time in whole seconds with its offset") && run.stderr.contains("not \"\(text)\""), "\(run.stderr)")
        }
    }

    static func restore(_ key: String, time: Int) -> (point: RecoveryPoints.Point, backup: BackupObject) {
        let location = BucketLocation(cloud: "dc-b", bucket: "bank-dr", region: "us-east-1", endpoint: "https://s3.dc-b.example")
        let point = RecoveryPoints.Point(server: "openstack.dc-b.DatabaseServer.bank.ledger.0", recoveryPoint: RecoveryPoint(location: location, object: key, takenAt: BackupStatus.text(time)))
        return (point, BackupObject(key: key, time: time, size: 0, sha256: nil))
    }

    /// `--to` moves an archive's point to the moment, and refuses a dump and a moment after the newest point.
    @Test func aTargetRestoresAnArchiveToItsMomentAndRefusesDumpsAndTheFuture() throws {
        let newest = try #require(BackupStatus.time("2026-12-05T22:30:00Z"))
        let targeted = try RecoveryPointReader.targeting([Self.restore("bank.ledger.0/g1", time: newest)], "2026-12-05T22:27:00Z")
        #expect(targeted.map(\.point.recoveryPoint.targetTime) == ["2026-12-05T22:27:00Z"])
        #expect(targeted.map(\.backup.time) == [newest - 180])
        #expect(try RecoveryPointReader.targeting([Self.restore("bank.ledger.0/g1", time: newest)], nil).map(\.point.recoveryPoint.targetTime) == [nil])
        #expect(throws: ProviderError.self) { try RecoveryPointReader.targeting([Self.restore("bank.ledger.0/20261205T220000Z.sql.gz", time: newest)], "2026-12-05T22:27:00Z") }
        #expect(throws: ProviderError.self) { try RecoveryPointReader.targeting([Self.restore("bank.ledger.0/g1", time: newest)], "2026-12-05T22:31:00Z") }
    }

    /// A leg of MariaDB dumps and shipped binary logs: `--to` starts from the newest dump uploaded by the moment and
    /// states the moment; a moment after the newest log, before every dump, or in a leg of dumps alone is refused.
    @Test(arguments: [
        ("2026-12-05T21:30:00Z", "shop.orders.0/20261205T210000Z.sql.gz.age"),
        ("2026-12-05T22:10:00Z", "shop.orders.0/20261205T220000Z.sql.gz.age"),
        ("2026-12-05T22:29:00Z", "shop.orders.0/20261205T220000Z.sql.gz.age"),
        ("2026-12-05T22:31:00Z", "is after the newest point shop.orders.0's leg holds, 2026-12-05T22:30:00Z"),
        ("2026-12-05T20:00:00Z", "is before the oldest dump of shop.orders.0"),
    ])
    func aMomentOfShippedLogsStartsFromTheDumpBeforeIt(_ target: String, _ outcome: String) throws {
        func object(_ key: String, _ time: String) throws -> BackupObject {
            BackupObject(key: key, time: try #require(BackupStatus.time(time)), size: 1, sha256: nil)
        }
        let objects = [
            try object("shop.orders.0/20261205T210000Z.sql.gz.age", "2026-12-05T21:00:05Z"),
            try object("shop.orders.0/20261205T220000Z.sql.gz.age", "2026-12-05T22:00:05Z"),
            try object("shop.orders.0/binlog/mariadb-bin.000004.age", "2026-12-05T22:30:00Z"),
            try object("shop.orders.0/binlog/status.json", "2026-12-05T22:30:01Z"),
            try object("shop.orders.1/20261205T221500Z.sql.gz.age", "2026-12-05T22:15:05Z"),
        ]
        if outcome.hasPrefix("shop.") {
            let start = try RecoveryPointReader.toMoment(target, objects: objects, server: "shop.orders.0")
            #expect(start.key == outcome && start.time == BackupStatus.time(target))
        } else {
            #expect { try RecoveryPointReader.toMoment(target, objects: objects, server: "shop.orders.0") } throws: { "\($0)".contains(outcome) }
        }
        #expect { try RecoveryPointReader.toMoment(target, objects: objects.filter { !$0.key.contains("/binlog/") }, server: "shop.orders.0") } throws: {
            "\($0)".contains("holds dumps only")
        }
    }
}
