import MCloudDatabaseEngines
import MCloudProvider
import Testing
@testable import MCloudCLI

/// `mcloud backups` shows a PostgreSQL archive as one row per repository, not one per WAL segment or bundle, and a
/// MariaDB server's shipped binary logs as one row; the newest log and a failed shipping are said below the rows.
struct BackupsArchiveRowTests {
    @Test func anArchiveIsOneRowAtItsNewestObjectWithTheirTotalSize() {
        let listed = [
            BackupObject(key: "bank.ledger.0/20261201T100000Z.sql.gz", time: 100, size: 7, sha256: "ab"),
            BackupObject(key: "bank.ledger.0/g1/archive/mcloud/archive.info", time: 200, size: 10, sha256: nil),
            BackupObject(key: "bank.ledger.0/g1/backup/mcloud/20261205-220000F/bundle/1", time: 210, size: 1000, sha256: nil),
            BackupObject(key: "bank.ledger.0/g1/archive/mcloud/15-1/0000000100000000/000000010000000000000003-ab.gz", time: 300, size: 20, sha256: nil),
            BackupObject(key: "bank.ledger.0/g2/archive/mcloud/archive.info", time: 250, size: 5, sha256: nil),
            BackupObject(key: "bank.ledger.0/gx/archive/mcloud/archive.info", time: 260, size: 1, sha256: nil),
        ]
        #expect(BackupsView.collapsingArchives(listed) == [
            BackupObject(key: "bank.ledger.0/20261201T100000Z.sql.gz", time: 100, size: 7, sha256: "ab"),
            BackupObject(key: "bank.ledger.0/g2/", time: 250, size: 5, sha256: nil),
            BackupObject(key: "bank.ledger.0/gx/archive/mcloud/archive.info", time: 260, size: 1, sha256: nil),
            BackupObject(key: "bank.ledger.0/g1/", time: 300, size: 1030, sha256: nil),
        ])
    }

    @Test func shippedBinaryLogsAreOneRowAndTheirStatusIsSaid() throws {
        let listed = [
            BackupObject(key: "shop.orders.0/20261201T100000Z.sql.gz.age", time: 100, size: 7, sha256: "ab"),
            BackupObject(key: "shop.orders.0/binlog/mariadb-bin.000001.age", time: 120, size: 300, sha256: "cd"),
            BackupObject(key: "shop.orders.0/binlog/mariadb-bin.000002.age", time: 150, size: 400, sha256: "ef"),
            BackupObject(key: "shop.orders.0/binlog/status.json", time: 151, size: 90, sha256: nil),
        ]
        let rows = BackupsView.collapsingArchives(listed)
        #expect(rows == [
            BackupObject(key: "shop.orders.0/20261201T100000Z.sql.gz.age", time: 100, size: 7, sha256: "ab"),
            BackupObject(key: "shop.orders.0/binlog/", time: 151, size: 790, sha256: nil),
        ])
        let status = try #require(BinaryLogArchive.Status(json: #"{"server": "shop.orders.0", "newest": "mariadb-bin.000002", "closedAt": "1970-01-01T00:02:29Z", "shippedAt": "1970-01-01T00:02:30Z", "error": "uploading mariadb-bin.000003 failed"}"#))
        let leg = BackupsView.Leg(cell: "orders", bucket: "b", cloud: "aws", schedule: nil, backups: rows, binaryLog: status, now: 200)
        let text = BackupsView.render([leg], now: 200)
        #expect(text.contains("  binary log: the newest shipped mariadb-bin.000002, closed 1970-01-01T00:02:29Z (51s ago)\n"), "\(text)")
        #expect(text.contains("  ! shipping the binary log failed: uploading mariadb-bin.000003 failed\n"), "\(text)")
        #expect(BinaryLogArchive.Status(json: #"{"newest": "x"}"#) == nil)
    }
}
