import MCloudDatabaseEngines
import Testing

/// Only keys in the backup job's layout are backups: anything else in a DR bucket is never a recovery point.
struct BackupKeyTests {
    @Test(arguments: [
        ("shop-eu.db.0/20261201T030000Z.sql.gz", true),
        ("retail-bank-ru.sessions-redis.0/20261201T030000Z.rdb", true),
        ("shop-eu.db.0/20261201T030000Z.sql.gz.age", true),
        ("retail-bank-ru.sessions-redis.0/20261201T030000Z.rdb.age", true),
        ("shop-eu.db.0/20261201T030000Z.sql.gz.age.age", false),
        ("shop-eu.db.0/20261201T030000Z.sql.gz.tar.age", false),
        ("shop-eu.db.0/20261201T030000Z.archive.gz", true),
        ("shop-eu.db.0/status.json", false),
        ("shop-eu.db.0/restored.json", false),
        ("shop-eu.db.0/20991231T235959Z\u{2028}bootcmd: [[sh, -c, \"id > PWNED\"]]\u{2028}.sql.gz", false),
        ("shop-eu.db.0/20261201T030000Z.sql.gz\n", false),
        ("shop-eu.db.0/20261301T030000Z.sql.gz", false),
        ("shop-eu.db.0/20261201T030000Z", false),
        ("shop-eu.db.0/20261201T030000Z.sql.gz.tar.x", false),
        ("../etc/20261201T030000Z.sql.gz", false),
        ("Shop.db.0/20261201T030000Z.sql.gz", false),
        ("shop-eu.db.0/x/20261201T030000Z.sql.gz", false),
        ("shop-eu.db.0/20261201T030000Z.SQL.gz", false),
        ("shop-eu.db.0/２0261201T030000Z.sql.gz", false),
    ])
    func aKeyIsABackupOnlyInTheJobsLayout(_ key: String, _ isBackup: Bool) {
        #expect(BackupKey.isWellFormed(key) == isBackup)
    }
}
