import MCloudProvider
import Testing
@testable import MCloudCLI

/// `mcloud backups` shows a PostgreSQL archive as one row per repository, not one per WAL segment or bundle.
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
}
