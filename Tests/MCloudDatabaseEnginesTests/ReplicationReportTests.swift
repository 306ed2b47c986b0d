import Foundation
import MCloudCore
import MCloudTestSupport
import MCloudYAML
import Testing
@testable import MCloudDatabaseEngines

/// A primary with standbys and a DR bucket writes what it sees of its standbys to `<server>/replication.json` every
/// minute; `ReplicationStatus` reads it back and says what cannot be relied on.
struct ReplicationReportTests {
    static func vm(_ recipe: Recipe, _ replication: DatabaseReplication, bucket: Bool = true) throws -> DatabaseVM {
        var vm = try ReplicationUserDataTests.vm(recipe, replication)
        if !bucket { vm.backup?.bucket = nil }
        return vm
    }


    @Test("the report runs on a primary with standbys and a bucket only", arguments: [
        ("a PostgreSQL primary with a bucket", AccessUserDataTests.postgres, ReplicationUserDataTests.primary, true, "2"),
        ("a Redis primary with a bucket", ReplicationUserDataTests.redis, ReplicationUserDataTests.primary, true, "2"),
        ("a MariaDB primary with a bucket", ReplicationUserDataTests.mariadb, ReplicationUserDataTests.primary, true, "2"),
        ("a MariaDB standby", ReplicationUserDataTests.mariadb, ReplicationUserDataTests.standby, true, nil),
        ("a PostgreSQL primary without a bucket", AccessUserDataTests.postgres, ReplicationUserDataTests.primary, false, nil),
        ("a PostgreSQL standby", AccessUserDataTests.postgres, ReplicationUserDataTests.standby, true, nil),
    ] as [(String, Recipe, DatabaseReplication, Bool, String?)])
    func theReportRunsWhereAPrimaryHasStandbysToSee(_ name: String, recipe: Recipe, role: DatabaseReplication, bucket: Bool, expected: String?) throws {
        let vm = try Self.vm(recipe, role, bucket: bucket)
        let files = try UserDataTests.files(DatabaseUserData.render(vm))
        #expect((files[ReplicationReport.script] != nil) == (expected != nil), "\(name)")
        #expect(DatabaseUserData.settings(vm).contains("MCLOUD_STANDBYS=") == (expected != nil), "\(name)")
        if let expected { #expect(DatabaseUserData.settings(vm).contains("MCLOUD_STANDBYS='\(expected)'\n"), "\(name)") }
        #expect(DatabaseUserData.setup.contains("/etc/cron.d/mcloud-replication"))
    }

    @Test func theReportScriptPassesBashAndShellcheck() async throws {
        let vm = try Self.vm(AccessUserDataTests.postgres, ReplicationUserDataTests.primary)
        let script = try #require(DatabaseUserData.files(vm).first { $0.path == ReplicationReport.script })
        let problems = try await bashLint(script.content)
        #expect(problems == nil, "\(problems ?? "")")
    }

    static let now = BackupStatus.time("2026-12-06T10:00:00Z")!

    static func report(at: String = "2026-12-06T09:59:30Z", expected: Int = 1, standbys: String, error: String = "null") -> String {
        #"{"server": "shop.db.0", "at": "\#(at)", "expected": \#(expected), "standbys": [\#(standbys)], "error": \#(error)}"#
    }

    static let streaming = #"{"name": "standby_1", "state": "streaming", "sync": "quorum", "lagSeconds": 0.012, "lagBytes": 0}"#

    @Test("what a report says cannot be relied on", arguments: [
        ("one standby streaming, close behind", report(standbys: streaming), [String]()),
        ("a Redis replica online", report(standbys: #"{"name": "10.0.0.7:6379", "state": "online", "sync": "async", "lagSeconds": 1, "lagBytes": 14}"#), []),
        ("a MariaDB standby streaming", report(standbys: #"{"name": "standby_1", "state": "streaming", "sync": "semi-sync", "lagSeconds": 0, "lagBytes": 0}"#), []),
        ("a MariaDB standby whose SQL thread stopped", report(standbys: #"{"name": "standby_1", "state": "sql-stopped", "sync": "semi-sync", "lagSeconds": 0, "lagBytes": 812}"#), [
            "0 of 1 standbys of shop.db.0 follow it",
        ]),
        ("no standby connected", report(standbys: ""), ["0 of 1 standbys of shop.db.0 follow it"]),
        ("a standby still catching up", report(standbys: streaming.replacingOccurrences(of: "streaming", with: "catchup")), ["0 of 1 standbys of shop.db.0 follow it"]),
        ("a standby 90 s behind", report(standbys: streaming.replacingOccurrences(of: "0.012", with: "90.5")), ["standby standby_1 of shop.db.0 is 90 s behind"]),
        ("a report ten minutes old", report(at: "2026-12-06T09:50:00Z", standbys: streaming), [
            "the replication report of shop.db.0 is 600 s old: its primary is down or cannot reach the bucket",
        ]),
        ("the engine did not answer", report(standbys: "", error: #""the engine did not answer""#), [
            "the replication report of shop.db.0 says: the engine did not answer", "0 of 1 standbys of shop.db.0 follow it",
        ]),
    ])
    func whatAReportSaysCannotBeReliedOn(_ name: String, json: String, problems: [String]) throws {
        let status = try #require(ReplicationStatus(json: json), "\(name)")
        #expect(status.problems(now: Self.now) == problems, "\(name)")
    }

    @Test("a report that is not one is read as none", arguments: [
        "", "[]", #"{"server": "a"}"#, report(at: "yesterday", standbys: streaming),
        report(standbys: #"{"name": "standby_1", "state": "streaming", "sync": "quorum", "lagSeconds": "x", "lagBytes": 0}"#),
    ])
    func aReportThatIsNotOneIsReadAsNone(_ json: String) {
        #expect(ReplicationStatus(json: json) == nil)
    }

    @Test func theReportIsNoBackup() {
        #expect(DatabaseUserData.backupTime(key: DatabaseUserData.replicationKey(server: "shop.db.0"), storedAt: "2026-12-06T10:00:00.000Z") == nil)
    }
}
