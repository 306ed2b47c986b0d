import Testing
@testable import MCloudDatabaseEngines

/// When a schedule last fired: what tells a DR leg whose backups stopped from one whose next run is not due.
struct CronScheduleTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var schedule: String
        var now: String
        var latest: String?
        var testDescription: String { "\(schedule) at \(now)" }
    }

    static let cases: [Case] = [
        Case(schedule: "0 */6 * * *", now: "2026-12-01T13:59:59Z", latest: "2026-12-01T12:00:00Z"),
        Case(schedule: "0 */6 * * *", now: "2026-12-01T12:00:00Z", latest: "2026-12-01T12:00:00Z"),
        Case(schedule: "15 */4 * * *", now: "2026-12-01T00:10:00Z", latest: "2026-11-30T20:15:00Z"),
        Case(schedule: "30 4 * * *", now: "2026-03-01T04:00:00Z", latest: "2026-02-28T04:30:00Z"),
        Case(schedule: "@hourly", now: "2026-12-01T10:59:00Z", latest: "2026-12-01T10:00:00Z"),
        Case(schedule: "@weekly", now: "2026-12-02T00:00:00Z", latest: "2026-11-29T00:00:00Z"),
        // Both day fields restricted: either matches (cron's rule); 2026-12-04 is a Friday.
        Case(schedule: "0 0 1 * FRI", now: "2026-12-05T12:00:00Z", latest: "2026-12-04T00:00:00Z"),
        // Only the day of week restricted: the 1st (a Tuesday) does not count.
        Case(schedule: "0 0 * * 5", now: "2026-12-03T12:00:00Z", latest: "2026-11-27T00:00:00Z"),
        Case(schedule: "0 12 29 FEB *", now: "2026-12-01T00:00:00Z", latest: nil),
        Case(schedule: "5/20 1-3 * JAN-MAR 0-7", now: "2026-01-05T02:30:00Z", latest: "2026-01-05T02:25:00Z"),
    ]

    @Test("the last run at or before a time", arguments: cases)
    func latestRun(_ test: Case) throws {
        let schedule = try #require(CronSchedule(test.schedule))
        let now = try #require(BackupStatus.time(test.now))
        #expect(schedule.latestRun(atOrBefore: now).map(BackupStatus.text) == test.latest)
    }

    @Test("the longest gap between two runs: what its dumps can lose", arguments: [
        ("0 */6 * * *", 6 * 3600), ("30 4 * * *", 86400), ("@hourly", 3600), ("*/5 * * * *", 300),
        // Friday 02:00 to Monday 02:00.
        ("0 2 * * 1-5", 3 * 86400),
        ("0 1,23 * * *", 22 * 3600), ("@monthly", 31 * 86400),
        // Once in the two years (2028-02-29): no gap to state.
        ("0 12 29 FEB *", nil),
    ] as [(String, Int?)])
    func longestGap(_ schedule: String, _ seconds: Int?) throws {
        #expect(try #require(CronSchedule(schedule)).longestGap() == seconds)
    }

    @Test func invalidSchedulesAreRefusedWithTheReason() {
        #expect(CronSchedule("0 3 * *") == nil)
        #expect(CronSchedule.problem(in: "61 3 * * *") == "the minute 61 is outside 0-59")
        #expect(CronSchedule.problem(in: "@sometimes") == "unknown shorthand @sometimes (use @hourly, @daily, @weekly, @monthly or @yearly)")
    }

    @Test("UTC times round-trip through the status object's format", arguments: ["1970-01-01T00:00:00Z", "2024-02-29T23:59:59Z", "2026-12-31T12:30:05Z"])
    func times(_ text: String) throws {
        #expect(BackupStatus.text(try #require(BackupStatus.time(text))) == text)
    }

    @Test func malformedTimesAreNotTimes() {
        for text in ["2026-02-30T00:00:00Z", "2026-12-01 10:00:00", "2026-12-01T10:00:00+01:00", "yesterday"] {
            #expect(BackupStatus.time(text) == nil, "\(text)")
        }
    }
}
