import Foundation
import MCloudTestSupport
import Testing
@testable import MCloudDatabaseEngines

/// An archive's status object as `mcloud-archive status` writes it: the newest point, the base backups, and the
/// last `pgbackrest verify`, whose runs of WAL show a segment missing from the bucket as a gap.
struct ArchiveStatusTests {
    /// pgBackRest 2.45's `verify --log-level-console=detail` on a repository whose segment 4 was deleted (recorded
    /// on Debian 12's package, 2026-12-06): verify itself passes, and only its runs show the gap.
    static let verifyLog = """
        2026-12-06 07:18:01.353 P00   INFO: verify command begin 2.45: --config=/tmp/pgbr-exp/pgbackrest.conf --exec-id=21277-82342ab1 --log-level-console=detail --stanza=mcloud
        2026-12-06 07:18:01.829 P00 DETAIL: archiveId: 15-1, wal start: 000000010000000000000001, wal stop: 000000010000000000000003
        2026-12-06 07:18:01.829 P00 DETAIL: archiveId: 15-1, wal start: 000000010000000000000005, wal stop: 000000010000000000000006
        2026-12-06 07:18:01.829 P00   INFO: verify command end: completed successfully (478ms)

        """

    /// The script's own `wal_ranges`, cut out of it and run by bash on the log.
    static func walRanges(_ log: String) async throws -> String {
        let script = PostgreSQLArchive.archiveScript
        let start = try #require(script.range(of: "wal_ranges() {"))
        let end = try #require(script.range(of: "\n}\n", range: start.upperBound..<script.endIndex))
        let function = String(script[start.lowerBound..<end.upperBound])
        let run = try await Command.run("/bin/bash", ["-c", function + "wal_ranges"], input: Data(log.utf8))
        #expect(run.succeeded, "\(run.output)")
        return run.stdout
    }

    /// A minute after the status object's `lastAttempt`.
    static let now = BackupStatus.time("2026-12-06T07:21:00Z")!

    static func status(verify: String) -> String {
        """
        {"server": "bank.ledger.0", "engine": "postgresql", "version": "15", "lastAttempt": "2026-12-06T07:20:00Z", "lastSuccess": "2026-12-06T07:18:00Z", \
        "object": "bank.ledger.0/g1/backup/mcloud/20261206-071748F", "size": null, "sha256": null, "archivedAt": "2026-12-06T07:19:30Z", \
        "archivedWAL": "000000010000000000000006", "repository": "bank.ledger.0/g1", "error": null, "verify": \(verify), \
        "pgbackrest": [{"name": "mcloud", "backup": [{"label": "20261206-071748F", "type": "full", "timestamp": {"start": 1796541468, "stop": 1796541470}}]}]}
        """
    }

    @Test func aSegmentMissingFromTheBucketIsAGapBetweenTwoRunsOfWAL() async throws {
        let ranges = try await Self.walRanges(Self.verifyLog)
        #expect(ranges == """
            ["15-1", "000000010000000000000001", "000000010000000000000003"]
            ["15-1", "000000010000000000000005", "000000010000000000000006"]

            """)
        let verify = #"{"verifiedAt": "2026-12-06T07:18:02Z", "walRanges": [\#(ranges.split(separator: "\n").joined(separator: ","))], "error": null}"#
        let archive = try #require(ArchiveStatus(json: Self.status(verify: verify)))
        #expect(archive.archivedAt == BackupStatus.time("2026-12-06T07:19:30Z") && archive.archivedWAL == "000000010000000000000006")
        #expect(archive.baseBackups == [.init(label: "20261206-071748F", type: "full", stoppedAt: 1796541470)])
        #expect(archive.verification?.gaps.map { "\($0.after)-\($0.before)" } == ["000000010000000000000003-000000010000000000000005"])
        #expect(archive.problems(now: Self.now) == [
            "the archive bank.ledger.0/g1 misses WAL after 000000010000000000000003 and before 000000010000000000000005 (pgbackrest verify at 2026-12-06T07:18:02Z): no point-in-time restore into that span or past it from an earlier base backup",
        ])
    }

    @Test(arguments: [
        // A promotion starts timeline 2: its run follows timeline 1's, and nothing is missing.
        (#"[["15-1", "000000010000000000000001", "000000010000000000000004"], ["15-1", "000000020000000000000004", "000000020000000000000007"]]"#, nil, [String]()),
        (#"[["15-1", "000000010000000000000001", "000000010000000000000009"]]"#, nil, []),
        (#"[]"#, #""pgbackrest verify exited 49: [049]: unable to read file""#, ["pgbackrest verify of bank.ledger.0/g1 failed at 2026-12-06T07:18:02Z: pgbackrest verify exited 49: [049]: unable to read file"]),
    ] as [(String, String?, [String])])
    func aTimelineSwitchIsNoGapAndAFailedVerifyIsAProblem(_ ranges: String, _ error: String?, _ problems: [String]) throws {
        let archive = try #require(ArchiveStatus(json: Self.status(verify: #"{"verifiedAt": "2026-12-06T07:18:02Z", "walRanges": \#(ranges), "error": \#(error ?? "null")}"#)))
        #expect(archive.problems(now: Self.now) == problems)
    }

    /// The status job runs every minute: a report five minutes old or less is fresh, an older one means the primary,
    /// its cron or its reach to the bucket is gone.
    @Test(arguments: [(300, false), (301, true), (7200, true)])
    func aStatusObjectOlderThanFiveMinutesSaysTheReportsStopped(_ age: Int, _ stale: Bool) throws {
        let archive = try #require(ArchiveStatus(json: Self.status(verify: "null")))
        let problems = archive.problems(now: try #require(archive.reportedAt) + age)
        #expect(problems == (stale ? ["the archive status of bank.ledger.0 is \(age) s old (written every minute): its primary is down, its status job stopped or it cannot reach the bucket"] : []))
    }

    @Test func aDumpsStatusOrOneNeverVerifiedHasNoArchiveProblem() throws {
        #expect(ArchiveStatus(json: #"{"server": "s", "lastSuccess": "2026-12-06T07:18:00Z", "object": "s/20261206T071800Z.rdb.gz.age", "error": null}"#) == nil)
        #expect(try #require(ArchiveStatus(json: Self.status(verify: "null"))).problems(now: Self.now).isEmpty)
    }
}
