import MCloudCore
import Testing
@testable import MCloudDatabaseEngines

/// What plan states a database cell can lose, per engine, standbys and DR leg (docs/databases.md, "Recovery points").
struct RecoveryObjectiveTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var engine: String
        var version = "15"
        var standbys: Int
        var schedule: String?
        var managed = false
        var hasLeg = true
        var inCloud: RecoveryObjective.Bound?
        var acrossClouds: RecoveryObjective.Bound?
        var stated = true
        var testDescription: String { "\(engine) \(version), \(standbys) standbys, \(schedule ?? "no backup")\(managed ? ", managed" : "")\(hasLeg ? "" : ", no leg")" }
    }

    static let cases: [Case] = [
        Case(
            engine: "postgresql", standbys: 1, schedule: "0 */6 * * *",
            inCloud: .init(seconds: 0, how: "synchronous standby"), acrossClouds: .init(seconds: 60, how: "WAL archived within 30 s, then pushed")
        ),
        Case(
            engine: "mariadb", version: "10.11", standbys: 1, schedule: "0 */4 * * *",
            inCloud: .init(seconds: 0, how: "semi-synchronous standby, asynchronous while none acknowledges"),
            acrossClouds: .init(seconds: 60, how: "binary log closed within 30 s, then pushed")
        ),
        Case(
            engine: "mysql", version: "8.0", standbys: 0, schedule: "0 */4 * * *",
            acrossClouds: .init(seconds: 4 * 3600, how: "a dump on '0 */4 * * *', plus the dump's own time")
        ),
        Case(
            engine: "redis", standbys: 2, schedule: "30 4 * * *",
            inCloud: .init(seconds: nil, how: "asynchronous replica: what it has not received"),
            acrossClouds: .init(seconds: 86400, how: "a dump on '30 4 * * *', plus the dump's own time")
        ),
        Case(engine: "mongodb", standbys: 0, schedule: "0 2 * * 1-5", acrossClouds: .init(seconds: 3 * 86400, how: "a dump on '0 2 * * 1-5', plus the dump's own time")),
        Case(engine: "postgresql", standbys: 1, schedule: "0 */6 * * *", managed: true, stated: false),
        Case(engine: "postgresql", standbys: 0, schedule: "0 */6 * * *", hasLeg: false, stated: false),
        Case(engine: "postgresql", standbys: 1, schedule: nil, hasLeg: false, inCloud: .init(seconds: 0, how: "synchronous standby")),
    ]

    @Test("a cell's recovery points as placed", arguments: cases)
    func recoveryPoints(_ test: Case) {
        let database = Database(
            name: "db", engine: test.engine, version: test.version, scope: .global, size: .init(vcpu: 2, memoryGiB: 4, storageGiB: 20),
            standbys: test.standbys, backup: test.schedule.map { .init(schedule: $0, retentionDays: 7, disasterRecovery: .init()) },
            location: SourceLocation(file: "db.yaml", line: 1, column: 1)
        )
        let objective = EngineCatalog.recoveryObjective(database, managed: test.managed, hasLeg: test.hasLeg)
        #expect(objective == (test.stated ? RecoveryObjective(inCloud: test.inCloud, disasterRecovery: test.acrossClouds) : nil))
    }
}
