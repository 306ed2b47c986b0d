import Foundation
import MCloudCore
import MCloudSecrets
import MCloudTestSupport
import Testing
@testable import MCloudDatabaseEngines

/// Debian's PostgreSQL 15 with the files a primary's and a standby's user data carry: the standby, seeded by
/// `pg_basebackup` over verified TLS with the connection string `follow` builds and the rendered password file,
/// streams in the primary's synchronous quorum, and a commit waits while it is stopped and returns once it is back.
/// The same on booted VMs: `StandbyBedTests`.
struct PostgreSQLReplicationTests {
    static let binaries = PostgreSQLAccessTests.binaries

    @Test func aStandbySeededAsFollowDoesStreamsOverTLSAndACommitWaitsForIt() async throws {
        try await PostgreSQLAccessTests.withServer(replication: .primary(standbys: ["standby_1"], cidrs: ["127.0.0.0/8"])) { port, folder, _ in
            let standby = try ServerAccess.derive(
                root: AccessUserDataTests.root, application: "retail-bank", server: "retail-bank-eu.payments-db.1", engine: .postgresql,
                access: PostgreSQLAccessTests.access, replication: .standby(name: "standby_1", primary: "retail-bank-eu.payments-db.0", port: port, cidrs: ["127.0.0.0/8"])
            )
            var replication = try #require(standby.replication)
            replication.primaryAddress = "127.0.0.1"
            let passwordFile = "\(folder)/replication.pgpass"
            try Data(try #require(PostgreSQLReplication.files(replication).first).content.utf8).write(to: URL(fileURLWithPath: passwordFile))
            try await PostgreSQLAccessTests.expectSuccess(Command.run("/usr/bin/chown", ["postgres:postgres", passwordFile]))
            try await PostgreSQLAccessTests.expectSuccess(Command.run("/usr/bin/chmod", ["600", passwordFile]))
            // The connection string exactly as the step builds it, its files where the test keeps them.
            let steps = PostgreSQLReplication.follow(major: "15", service: "postgresql@15-main").joined(separator: "\n")
                .replacingOccurrences(of: PostgreSQLReplication.installedPasswordFile, with: passwordFile)
                .replacingOccurrences(of: PostgreSQLReplication.installedAuthority, with: "\(folder)/ca.crt")
            let building = steps.split(separator: "\n").filter { $0.hasPrefix("conninfo=") }.joined(separator: "\n")
            let settings = Dictionary(replication.settings.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            let conninfo = try await Command.run("/bin/bash", ["-c", building + "\nprintf %s \"$conninfo\""], environment: settings).stdout
            #expect(conninfo.contains("hostaddr=127.0.0.1") && conninfo.contains("sslmode=verify-full") && conninfo.contains("application_name=standby_1"))
            let data = "\(folder)/standby"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try await PostgreSQLAccessTests.expectSuccess(Command.run("/usr/bin/chown", ["postgres:postgres", data]))
            try await PostgreSQLAccessTests.expectSuccess(Command.run(
                "/usr/sbin/runuser", ["-u", "postgres", "--", "\(Self.binaries)/pg_basebackup", "-D", data, "-R", "-X", "stream", "-c", "fast", "-S", "standby_1", "-d", conninfo]
            ))
            func psql(_ port: Int, _ sql: String, timeout: Int = 20) async throws -> Command {
                try await Command.run("/usr/bin/timeout", [String(timeout), "/usr/sbin/runuser", "-u", "postgres", "--", "/usr/bin/psql", "-X", "-Atq", "-h", folder, "-p", "\(port)", "-d", "postgres", "-c", sql])
            }
            var follower = try await PostgreSQLAccessTests.start(data: data, port: port + 1, folder: folder, log: "standby.log")
            defer {
                if follower.isRunning { follower.terminate() }
                follower.waitUntilExit()
            }
            /// What `sql` prints on `port` once it is `expected`, or after 10 s.
            func poll(_ port: Int, _ sql: String, until expected: String) async throws -> String {
                var answer = ""
                for _ in 0..<100 where answer != expected {
                    answer = try await psql(port, sql).stdout
                    if answer != expected { try await Task.sleep(for: .milliseconds(100)) }
                }
                return answer
            }
            let streaming = "SELECT r.application_name, r.state, r.sync_state, s.ssl, s.version FROM pg_stat_replication r JOIN pg_stat_ssl s USING (pid)"
            #expect(try await poll(port, streaming, until: "standby_1|streaming|quorum|t|TLSv1.3\n") == "standby_1|streaming|quorum|t|TLSv1.3\n")
            #expect(try await psql(port, "CREATE TABLE replicated (id int); INSERT INTO replicated VALUES (1)").succeeded)
            #expect(try await poll(port + 1, "SELECT count(*), pg_is_in_recovery() FROM replicated", until: "1|t\n") == "1|t\n")
            // The primary's report step, as `mcloud-engine replicas` runs it: one row, the standby streaming in the quorum.
            let report = try await Command.run("/bin/bash", ["-c", PostgreSQLReplication.report], environment: ["PORT": String(port), "PGHOST": folder])
            let row = report.stdout.split(separator: "\t").map(String.init)
            #expect(row.count == 5 && row.prefix(3) == ["standby_1", "streaming", "quorum"], "\(report.output)")
            #expect(row.count == 5 && Double(row[3]) != nil && Int(row[4].trimmingCharacters(in: .newlines)) != nil, "\(report.output)")
            // No standby, no acknowledgement: the commit is still waiting when the client gives up.
            if follower.isRunning { follower.terminate() }
            follower.waitUntilExit()
            let waiting = try await psql(port, "INSERT INTO replicated VALUES (2)", timeout: 3)
            #expect(waiting.exitCode == 124, "the commit returned without a standby: \(waiting.output)")
            follower = try await PostgreSQLAccessTests.start(data: data, port: port + 1, folder: folder, log: "standby.log")
            #expect(try await psql(port, "INSERT INTO replicated VALUES (3)").succeeded)
            // The abandoned commit was made on the primary all the same, and reaches the standby with the next.
            #expect(try await poll(port + 1, "SELECT count(*) FROM replicated", until: "3\n") == "3\n")

            // A switchover's steps, as `mcloud-engine demote|promote` runs them, on the wrong server: each refuses and
            // changes nothing. (The whole switchover, with its clean shutdown by systemd, runs on the bed.)
            func step(_ lines: [String], port: Int, _ environment: [String: String]) async throws -> Command {
                let text = lines.joined(separator: "\n").replacingOccurrences(of: PostgreSQLReplication.installedPasswordFile, with: passwordFile)
                return try await Command.run("/bin/bash", ["-euo", "pipefail", "-c", text], environment: ["PORT": String(port), "PGHOST": folder].merging(environment) { $1 })
            }
            let demote = PostgreSQLReplication.demote(major: "15", service: "postgresql@15-main")
            let newPrimary = ["MCLOUD_MEMBER_NAME": "standby_0", "MCLOUD_PRIMARY_HOST": "retail-bank-eu.payments-db.1", "MCLOUD_PRIMARY_PORT": String(port + 1)]
            let onStandby = try await step(demote, port: port + 1, newPrimary)
            #expect(onStandby.exitCode == 1 && onStandby.stderr.contains("this server is not a primary (pg_is_in_recovery() is t); nothing changed"), "\(onStandby.output)")
            let lsn = try await psql(port, "SELECT pg_current_wal_lsn()").stdout.trimmingCharacters(in: .newlines)
            let members = ["MCLOUD_SWITCHOVER_LSN": lsn, "MCLOUD_MEMBERS": "standby_0"]
            let onPrimary = try await step([PostgreSQLReplication.promote], port: port, members)
            #expect(onPrimary.exitCode == 1 && onPrimary.stderr.contains("this server is not a standby (pg_is_in_recovery() is f); nothing changed"), "\(onPrimary.output)")
            let repointPrimary = try await step([PostgreSQLReplication.repoint], port: port, newPrimary)
            #expect(repointPrimary.exitCode == 1 && repointPrimary.stderr.contains("mcloud-engine repoint: this server is not a standby (pg_is_in_recovery() is f); nothing changed"), "\(repointPrimary.output)")
            #expect(try await psql(port, "SELECT pg_is_in_recovery(), current_setting('synchronous_standby_names')").stdout == "f|ANY 1 (standby_1)\n")
            #expect(try await poll(port, streaming, until: "standby_1|streaming|quorum|t|TLSv1.3\n") == "standby_1|streaming|quorum|t|TLSv1.3\n")
            // Inputs that would reach postgresql.auto.conf or SQL are refused before anything is looked at.
            for (lines, environment, message) in [
                (demote, newPrimary.merging(["MCLOUD_MEMBER_NAME": "standby_0' x"]) { $1 }, #"MCLOUD_MEMBER_NAME "standby_0' x" is not an engine-safe name"#),
                (demote, newPrimary.merging(["MCLOUD_PRIMARY_HOST": "db' host=evil"]) { $1 }, #"MCLOUD_PRIMARY_HOST "db' host=evil" is not a host name"#),
                ([PostgreSQLReplication.promote], members.merging(["MCLOUD_SWITCHOVER_LSN": "0/1'"]) { $1 }, #"MCLOUD_SWITCHOVER_LSN "0/1'" is not an LSN"#),
                ([PostgreSQLReplication.promote], members.merging(["MCLOUD_MEMBERS": "standby_0 x;y"]) { $1 }, #"MCLOUD_MEMBERS: "x;y" is not an engine-safe name"#),
                ([PostgreSQLReplication.repoint], newPrimary.merging(["MCLOUD_PRIMARY_PORT": "5432'"]) { $1 }, #"MCLOUD_PRIMARY_PORT "5432'" is not a port"#),
                ([PostgreSQLReplication.repoint], newPrimary.merging(["MCLOUD_PRIMARY_ADDRESS": "10.0.0.1 x"]) { $1 }, #"MCLOUD_PRIMARY_ADDRESS "10.0.0.1 x" is not an address"#),
            ] {
                let refused = try await step(lines, port: port, environment)
                #expect(refused.exitCode == 1 && refused.stderr.contains(message + "; nothing changed"), "\(refused.output)")
            }
            // On the standby, past a position of the primary: promoted, the synchronous names its other members (the
            // base backup's named itself), a slot for each reserving WAL, no upstream left.
            #expect(try await psql(port, "INSERT INTO replicated VALUES (4)").succeeded)
            let promote = try await step([PostgreSQLReplication.promote], port: port + 1, members)
            #expect(promote.succeeded, "\(promote.output)")
            let promoted = "SELECT pg_is_in_recovery(), current_setting('synchronous_standby_names'), current_setting('primary_conninfo'), "
                + "(SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'standby_0' AND restart_lsn IS NOT NULL), (SELECT count(*) FROM replicated)"
            #expect(try await psql(port + 1, promoted).stdout == "f|ANY 1 (standby_0)||1|4\n")
        }
    }
}
