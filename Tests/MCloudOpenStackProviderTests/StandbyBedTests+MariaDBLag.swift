import Foundation
import MCloudCore
import MCloudDatabaseEngines
import MCloudTestSupport
import Testing

extension StandbyBedTests {
    /// MariaDB's primary reports its standby's lag (docs/databases.md, "Lag"): it reads the standby's replica status
    /// over verified TLS as the monitor account, through the name and port the standby registered (the name, which
    /// the bed does not resolve, mapped to the address the standby's replication connection comes from), and the report in
    /// the DR bucket says `standby_1 streaming semi-sync`, a few seconds and bytes behind at most. With the standby's
    /// SQL thread stopped it is still connected and shows `sql-stopped` with the bytes it has not applied; with its
    /// replication stopped it is gone or `io-stopped`; either way the leg is flagged; started again it catches up.
    @Test func aMariaDBPrimaryReportsItsStandbysLag() async throws {
        try await Self.boot("mysql") { pair in
            let threads = "mariadb -e 'SHOW SLAVE STATUS\\G' | grep -E '^ *Slave_(IO|SQL)_Running:' | tr -s ' '"
            #expect(try await Self.poll(pair.container, pair.standby, threads, until: " Slave_IO_Running: Yes\n Slave_SQL_Running: Yes\n"))
            let clients = "mariadb -N -e \"SHOW STATUS LIKE 'Rpl_semi_sync_master_clients'\""
            #expect(try await Self.poll(pair.container, pair.primary, clients, until: "Rpl_semi_sync_master_clients\t1\n"))
            let rows = try await pair.container.shell(pair.primary, "\(DatabaseUserData.engineScript) replicas")
            print("mcloud-engine replicas on the primary, following: \(rows.debugDescription)")
            // The standby's name resolves nowhere on the primary: the report mapped it to where its connection comes from.
            let mapped = try await pair.container.shell(pair.primary, "grep ' # mcloud-replicas$' /etc/hosts")
            #expect(mapped == "127.0.0.1 \(pair.server.dropLast())1 # mcloud-replicas\n", "the standby is the primary's copy 1")
            let following = try #require(try await pair.report())
            #expect(following.standbys.map { "\($0.name) \($0.state) \($0.sync)" } == ["standby_1 streaming semi-sync"], "\(following)")
            #expect(following.standbys.allSatisfy { $0.lagSeconds <= 5 && (0..<100_000).contains($0.lagBytes) }, "\(following)")
            #expect(following.problems(now: Self.now).isEmpty, "\(following)")

            // The SQL thread stopped: still connected and acknowledging, so a commit does not wait, but nothing applied.
            _ = try await pair.container.shell(pair.standby, "mariadb -e 'STOP SLAVE SQL_THREAD'")
            _ = try await pair.container.shell(
                pair.primary, "mariadb -e 'CREATE DATABASE lag; CREATE TABLE lag.rows (id INT PRIMARY KEY, pad TEXT); USE lag; INSERT INTO lag.rows SELECT seq, REPEAT(\"x\", 100) FROM seq_1_to_200'"
            )
            let stalled = try #require(try await pair.report())
            print("the report with the standby's SQL thread stopped: \(Self.lines(stalled))")
            #expect(stalled.standbys.map { "\($0.name) \($0.state)" } == ["standby_1 sql-stopped"], "\(stalled)")
            #expect((stalled.standbys.first?.lagBytes ?? 0) > 10_000, "200 rows of 100 bytes not applied: \(stalled)")
            #expect(stalled.problems(now: Self.now) == ["0 of 1 standbys of \(pair.server) follow it"], "\(stalled)")

            // Replication stopped: the primary drops the standby once it notices, and until then the standby says so.
            _ = try await pair.container.shell(pair.standby, "mariadb -e 'STOP SLAVE'")
            let stopped = try #require(try await pair.report())
            print("the report with the standby's replication stopped: \(Self.lines(stopped))")
            #expect(stopped.standbys.allSatisfy { $0.state == "io-stopped" }, "\(stopped)")
            #expect(stopped.problems(now: Self.now) == ["0 of 1 standbys of \(pair.server) follow it"], "\(stopped)")

            // Started again, it catches up and streams with nothing left to apply.
            _ = try await pair.container.shell(pair.standby, "mariadb -e 'START SLAVE'")
            var recovered: ReplicationStatus?
            for _ in 0..<30 {
                recovered = try await pair.report()
                if recovered?.standbys.map({ "\($0.name) \($0.state) \($0.sync) \($0.lagBytes)" }) == ["standby_1 streaming semi-sync 0"] { break }
                try await Task.sleep(for: .seconds(2))
            }
            print("the report once the standby's replication started again: \(recovered.map(Self.lines) ?? "none")")
            #expect(recovered?.standbys.map { "\($0.name) \($0.state) \($0.sync) \($0.lagBytes)" } == ["standby_1 streaming semi-sync 0"], "\(String(describing: recovered))")
            #expect(recovered?.problems(now: Self.now) == [], "\(String(describing: recovered))")
            #expect(try await pair.container.shell(pair.standby, "mariadb -N -e 'SELECT COUNT(*) FROM lag.rows'") == "200\n")
        }
    }

    static var now: Int { Int(Date().timeIntervalSince1970) }

    /// A report's standbys as `mcloud-engine replicas` printed them.
    static func lines(_ status: ReplicationStatus) -> String {
        status.standbys.map { "\($0.name) \($0.state) \($0.sync) \($0.lagSeconds) \($0.lagBytes)" }.joined(separator: "; ")
    }
}
