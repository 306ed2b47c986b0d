import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStackProvider
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing

/// A primary and its standby booted for real from the OpenStack provider's user data (docs/databases.md,
/// "Standbys"). PostgreSQL: the standby seeds itself from the primary over verified TLS as the replicator, rows
/// written on the primary reach it, `pg_stat_replication` shows it streaming over TLS in the synchronous quorum, and
/// with the standby stopped a commit has not returned after 6 s, while the next returns once it is back; a switchover
/// under a write load loses no acknowledged row and the old primary follows the new one; in a cell of three the other
/// standby follows the new primary too. Redis: a key
/// written on the primary reaches the replica. The bed's servers have no port, so the provider finds no address for
/// the primary: the standby reaches it by its server name, which the test points at a forwarder to the primary's
/// published port, as a cloud's DNS or the provider's address would; the primary reaches the standby's port on its own
/// loopback (a MariaDB primary reads its standbys' lag there) and, for a PostgreSQL switchover, by the standby's name
/// the same way. Fails, never skips, without the beds (openstack.sh up, moto.sh start, container.sh start). One cell at
/// a time: ten containers booting at once beside the other bed suites left systemd in the newest ones with every boot
/// job waiting and none running (seen twice on 2026-12-06, on the host and in a fresh root).
@Suite(.serialized, .timeLimit(.minutes(30))) struct StandbyBedTests {
    struct Pair {
        var primary: String
        var standby: String
        var container: ContainerBed
        /// The standby's server name, a name of its certificate, which resolves on the primary; the engine's ports.
        var standbyServer: String
        var port: Int
        var standbyPort: Int
        /// The standby's login to the primary, to look for where it must not be.
        var password: String
        /// A CA of another application, which the primary's certificate does not chain to.
        var otherAuthorityPEM: String
        /// The primary's DR bucket on the moto bed, and its server name there.
        var s3: S3Client
        var bucket: String
        var server: String
        /// The operator's root, which signs switchover orders; the application and the cell.
        var root: SecretRoot
        var application: String
        var cell: String
        /// The standbys after the first (`standby_2`, ...): each container, server name and port.
        var moreStandbys: [(instance: String, server: String, port: Int)] = []

        /// What the primary's report says once it has run (as its cron job does every minute).
        func report() async throws -> ReplicationStatus? {
            _ = try await container.shell(primary, ReplicationReport.script)
            let bytes = try await s3.getObject(bucket: bucket, key: DatabaseUserData.replicationKey(server: server))
            return ReplicationStatus(json: String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func aPostgreSQLStandbyStreamsOverTLSAndACommitWaitsForIt() async throws {
        try await Self.boot("postgresql") { pair in
            let port = 5433
            let psql = "runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -p \(port)"
            let replication = "\(psql) -c \"SELECT r.application_name, r.state, r.sync_state, s.ssl, s.version FROM pg_stat_replication r JOIN pg_stat_ssl s USING (pid)\""
            #expect(try await Self.poll(pair.container, pair.primary, replication, until: "standby_1|streaming|quorum|t|TLSv1.3\n"))
            _ = try await pair.container.shell(pair.primary, "\(psql) -c 'CREATE TABLE replicated (id int)' -c 'INSERT INTO replicated SELECT generate_series(1, 100)'")
            let standbyPSQL = "runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -p \(port + 1)"
            let count = "\(standbyPSQL) -c 'SELECT count(*) FROM replicated'"
            #expect(try await Self.poll(pair.container, pair.standby, count, until: "100\n"))
            #expect(try await pair.container.shell(pair.standby, "\(standbyPSQL) -c 'SELECT pg_is_in_recovery()'") == "t\n")
            // The primary reports its standby to the DR bucket, streaming in the quorum; stopped, the standby is missing.
            let following = try #require(try await pair.report())
            #expect(following.standbys.map { "\($0.name) \($0.state) \($0.sync)" } == ["standby_1 streaming quorum"])
            #expect(following.problems(now: Int(Date().timeIntervalSince1970)).isEmpty)
            // Stopped, the standby acknowledges nothing: the commit is still waiting when the client gives up after 6 s
            // (a command left running in the container would hold its exec open), and the next returns once it is back.
            _ = try await pair.container.shell(pair.standby, "systemctl stop postgresql@15-main")
            #expect(try await pair.report()?.problems(now: Int(Date().timeIntervalSince1970)) == ["0 of 1 standbys of \(pair.server) follow it"])
            let waiting = try await pair.container.exec(pair.primary, ["bash", "-c", "timeout 6 \(psql) -c 'INSERT INTO replicated VALUES (101)'"])
            #expect(waiting.exitCode == 124, "the commit returned without a standby: \(waiting.output)")
            _ = try await pair.container.shell(pair.standby, "systemctl start postgresql@15-main")
            _ = try await pair.container.shell(pair.primary, "timeout 60 \(psql) -c 'INSERT INTO replicated VALUES (102)'")
            // The abandoned commit was made on the primary all the same, and reaches the standby with the next.
            #expect(try await Self.poll(pair.container, pair.standby, count, until: "102\n"))
        }
    }

    /// The switchover (docs/databases.md, "Switchover"): while a loop on the primary inserts a row with its commit
    /// time every 150 ms and logs each id whose commit returned, `mcloud-engine demote` stops the primary and starts it
    /// as `standby_0` of the standby's server, and `mcloud-engine promote` makes the standby the primary once it has
    /// replayed past the LSN demote printed. Every acknowledged id is on the new primary; the old one streams from it
    /// over TLS in its synchronous quorum, receives its rows and holds back its commits while stopped; and each step,
    /// run on the other's server, refuses and changes nothing.
    @Test func aPostgreSQLSwitchoverLosesNoCommittedRowAndTheOldPrimaryFollows() async throws {
        try await Self.boot("postgresql", archives: true) { pair in
            let psql = { (port: Int) in "runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -p \(port)" }
            let replication = { (port: Int) in
                "\(psql(port)) -c \"SELECT r.application_name, r.state, r.sync_state, s.ssl, s.version FROM pg_stat_replication r JOIN pg_stat_ssl s USING (pid)\""
            }
            let inRecovery = { (port: Int) in "\(psql(port)) -c 'SELECT pg_is_in_recovery()'" }
            #expect(try await Self.poll(pair.container, pair.primary, replication(pair.port), until: "standby_1|streaming|quorum|t|TLSv1.3\n"))
            // `secure` gave the primary the login it follows another primary with once demoted.
            #expect(try await pair.container.shell(pair.primary, "stat -c %a:%U /etc/mcloud/tls/postgres/replication.pgpass") == "600:postgres\n")
            _ = try await pair.container.shell(pair.primary, "\(psql(pair.port)) -c 'CREATE TABLE switchover (id int PRIMARY KEY, committed_at timestamptz)'")
            // The load: an id is acknowledged once its commit returned, which synchronous replication makes wait for
            // the standby; it goes on, failing, while the primary is down or read-only.
            let load = """
                id=0
                while [ ! -e /root/load.stop ]; do
                  id=$((id + 1))
                  echo "$id" >>/root/load.tried
                  if timeout 10 \(psql(pair.port)) -c "INSERT INTO switchover VALUES ($id, clock_timestamp())" >/dev/null 2>>/root/load.errors; then
                    echo "$id" >>/root/load.acked
                  fi
                  sleep 0.15
                done
                touch /root/load.done

                """
            _ = try await pair.container.shell(pair.primary, "cat >/root/load.sh", input: Data(load.utf8))
            // Started by the container's systemd, which gives it none of this exec's descriptors: a process that inherits
            // them keeps Foundation's Process, and so the test, waiting for the exec to end.
            _ = try await pair.container.shell(pair.primary, "systemd-run --quiet --collect --unit mcloud-load bash /root/load.sh")
            try await Task.sleep(for: .seconds(8))
            let demote = try await pair.container.exec(pair.primary, [
                "env", "MCLOUD_MEMBER_NAME=standby_0", "MCLOUD_PRIMARY_HOST=\(pair.standbyServer)", "MCLOUD_PRIMARY_PORT=\(pair.standbyPort)",
                DatabaseUserData.engineScript, "demote",
            ])
            #expect(demote.succeeded, "\(demote.output)")
            let lsn = demote.stdout.trimmingCharacters(in: .newlines)
            #expect(lsn.wholeMatch(of: /[0-9A-F]+\/[0-9A-F]+/) != nil, "demote printed \(demote.stdout)")
            let promote = try await pair.container.exec(pair.standby, [
                "env", "MCLOUD_SWITCHOVER_LSN=\(lsn)", "MCLOUD_MEMBERS=standby_0", DatabaseUserData.engineScript, "promote",
            ])
            #expect(promote.succeeded, "\(promote.output)")
            _ = try await pair.container.shell(pair.primary, "touch /root/load.stop")
            #expect(try await Self.poll(pair.container, pair.primary, "[ -e /root/load.done ] && echo done || true", until: "done\n"))
            // Counted: every id whose commit returned on the old primary is on the new one.
            func ids(_ text: String) -> [Int] { text.split(separator: "\n").compactMap { Int($0) } }
            let tried = ids(try await pair.container.shell(pair.primary, "cat /root/load.tried"))
            let acknowledged = ids(try await pair.container.shell(pair.primary, "cat /root/load.acked"))
            let onNew = Set(ids(try await pair.container.shell(pair.standby, "\(psql(pair.standbyPort)) -c 'SELECT id FROM switchover'")))
            let lost = acknowledged.filter { !onNew.contains($0) }
            print("switchover at \(lsn): \(tried.count) rows written, \(acknowledged.count) acknowledged, \(onNew.count) on the new primary, \(lost.count) lost")
            #expect(acknowledged.count >= 20, "the load acknowledged \(acknowledged.count) rows")
            #expect(lost.isEmpty, "acknowledged and lost: \(lost)")
            #expect(try await pair.container.shell(pair.standby, inRecovery(pair.standbyPort)) == "f\n")
            #expect(try await pair.container.shell(pair.standby, "\(psql(pair.standbyPort)) -c 'SHOW synchronous_standby_names'") == "ANY 1 (standby_0)\n")
            #expect(try await Self.poll(pair.container, pair.primary, inRecovery(pair.port), until: "t\n"))
            #expect(try await Self.poll(pair.container, pair.standby, replication(pair.standbyPort), until: "standby_0|streaming|quorum|t|TLSv1.3\n"))
            // A row written on the new primary reaches the old one.
            _ = try await pair.container.shell(pair.standby, "\(psql(pair.standbyPort)) -c 'INSERT INTO switchover VALUES (0, clock_timestamp())'")
            #expect(try await Self.poll(pair.container, pair.primary, "\(psql(pair.port)) -c 'SELECT count(*) FROM switchover WHERE id = 0'", until: "1\n"))
            // With the old primary stopped, a commit on the new one has not returned after 6 s; the next returns once it is back.
            _ = try await pair.container.shell(pair.primary, "systemctl stop postgresql@15-main")
            let waiting = try await pair.container.exec(
                pair.standby, ["bash", "-c", "timeout 6 \(psql(pair.standbyPort)) -c 'INSERT INTO switchover VALUES (-1, clock_timestamp())'"]
            )
            #expect(waiting.exitCode == 124, "the commit returned without the old primary: \(waiting.output)")
            _ = try await pair.container.shell(pair.primary, "systemctl start postgresql@15-main")
            _ = try await pair.container.shell(pair.standby, "timeout 60 \(psql(pair.standbyPort)) -c 'INSERT INTO switchover VALUES (-2, clock_timestamp())'")
            #expect(try await Self.poll(pair.container, pair.primary, "\(psql(pair.port)) -c 'SELECT count(*) FROM switchover WHERE id < 0'", until: "2\n"))
            // Each step on the other's server refuses and changes nothing: demote on a standby, promote on a primary.
            let demoteStandby = try await pair.container.exec(pair.primary, [
                "env", "MCLOUD_MEMBER_NAME=standby_0", "MCLOUD_PRIMARY_HOST=\(pair.standbyServer)", "MCLOUD_PRIMARY_PORT=\(pair.standbyPort)",
                DatabaseUserData.engineScript, "demote",
            ])
            #expect(demoteStandby.exitCode == 1 && demoteStandby.stderr.contains("this server is not a primary"), "\(demoteStandby.output)")
            let promotePrimary = try await pair.container.exec(pair.standby, [
                "env", "MCLOUD_SWITCHOVER_LSN=\(lsn)", "MCLOUD_MEMBERS=standby_1", DatabaseUserData.engineScript, "promote",
            ])
            #expect(promotePrimary.exitCode == 1 && promotePrimary.stderr.contains("this server is not a standby"), "\(promotePrimary.output)")
            #expect(try await pair.container.shell(pair.standby, "\(psql(pair.standbyPort)) -c 'SHOW synchronous_standby_names'") == "ANY 1 (standby_0)\n")
            #expect(try await pair.container.shell(pair.primary, inRecovery(pair.port)) == "t\n")
            #expect(try await Self.poll(pair.container, pair.standby, replication(pair.standbyPort), until: "standby_0|streaming|quorum|t|TLSv1.3\n"))

            // The archive goes on from the new primary, on its new timeline, into the cell's one repository, with no
            // gap; the old primary, a standby now, takes no full backup.
            _ = try await pair.container.shell(pair.standby, "\(psql(pair.standbyPort)) -c 'INSERT INTO switchover VALUES (-3, clock_timestamp())' -c 'SELECT 1 FROM pg_switch_wal()'")
            let archived = "\(psql(pair.standbyPort)) -c 'SELECT left(last_archived_wal, 8) FROM pg_stat_archiver'"
            #expect(try await Self.poll(pair.container, pair.standby, archived, until: "00000002\n"))
            _ = try await pair.container.shell(pair.standby, "\(PostgreSQLArchive.script) verify")
            // Its status object replaces the old primary's, under the archive's owner, where the leg's watch reads it.
            let bytes = try #require(try await pair.s3.objectIfExists(bucket: pair.bucket, key: DatabaseUserData.statusKey(server: pair.server)))
            let archive = try #require(ArchiveStatus(json: String(decoding: bytes, as: UTF8.self)))
            #expect(archive.server == pair.standbyServer, "\(archive)")
            #expect(archive.repository == "\(pair.server)/g1" && archive.archivedWAL?.hasPrefix("00000002") == true, "\(archive)")
            #expect(archive.verification?.ranges.isEmpty == false && archive.problems(now: Int(Date().timeIntervalSince1970)).isEmpty, "\(archive)")
            let backup = try await pair.container.shell(pair.primary, "\(PostgreSQLArchive.script) backup")
            #expect(backup.contains("a standby: its primary takes the full backups"), "\(backup)")
        }
    }

    /// The switchover through the bucket, as `mcloud switchover` drives it (docs/databases.md, "Switchover"): an order
    /// signed with another operator's key is refused by both members and changes nothing; the cell's own order makes
    /// the primary demote and the standby promote within their timers' ticks, each writing its step, with every row
    /// on the new primary; the same order again is not acted on.
    @Test func aSignedOrderInTheBucketSwitchesOverAndAForgedOneIsRefused() async throws {
        try await Self.boot("postgresql", archives: true) { pair in
            let psql = { (port: Int) in "runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -p \(port)" }
            #expect(try await Self.poll(pair.container, pair.primary, "\(psql(pair.port)) -c 'SELECT state FROM pg_stat_replication'", until: "streaming\n"))
            for member in [pair.primary, pair.standby] {
                #expect(try await pair.container.shell(member, "systemctl is-active mcloud-switchover.timer") == "active\n")
            }
            _ = try await pair.container.shell(pair.primary, "\(psql(pair.port)) -c 'CREATE TABLE moved (id int)' -c 'INSERT INTO moved SELECT generate_series(1, 50)'")
            let now = Int(Date().timeIntervalSince1970)
            func order(serial: Int) -> SwitchoverOrder {
                SwitchoverOrder(
                    application: pair.application, cell: pair.cell, serial: serial, notAfter: now + 900, primary: "standby_0", target: "standby_1",
                    targetHost: pair.standbyServer, targetPort: pair.standbyPort, members: ["standby_0", "standby_1"]
                )
            }
            func put(_ order: SwitchoverOrder, signedBy root: SecretRoot) async throws {
                try await pair.s3.putObject(bucket: pair.bucket, key: SwitchoverOrder.signatureKey(owner: pair.server), body: Array(try order.signature(root: root).utf8))
                try await pair.s3.putObject(bucket: pair.bucket, key: SwitchoverOrder.key(owner: pair.server), body: order.document, contentType: "application/json")
            }
            func step(_ name: String, _ member: String) async throws -> JSONValue? {
                for _ in 0..<90 {
                    if let bytes = try await pair.s3.objectIfExists(bucket: pair.bucket, key: "\(pair.server)/control/\(name).\(member).json") {
                        return try JSONParser.parse(bytes)
                    }
                    try await Task.sleep(for: .seconds(2))
                }
                return nil
            }
            // Another operator's key: both refuse, the primary stays.
            let other = SecretRoot(identity: try AgeIdentity(secretKey: [UInt8](repeating: 99, count: 32)))
            try await put(order(serial: now), signedBy: other)
            for member in ["standby_0", "standby_1"] {
                let refused = try await step("refused", member)
                #expect(refused?["step"]?.stringValue == "refused" && refused?["error"]?.stringValue?.contains("not signed by the cell's key") == true, "\(String(describing: refused))")
            }
            #expect(try await pair.container.shell(pair.primary, "\(psql(pair.port)) -c 'SELECT pg_is_in_recovery()'") == "f\n")

            // The cell's own order.
            let genuine = order(serial: now + 1)
            try await put(genuine, signedBy: pair.root)
            let demoted = try await step(String(genuine.serial), "standby_0")
            #expect(demoted?["step"]?.stringValue == "demoted", "\(String(describing: demoted))")
            let promoted = try await step(String(genuine.serial), "standby_1")
            #expect(promoted?["step"]?.stringValue == "promoted" && promoted?["lsn"] == demoted?["lsn"], "\(String(describing: promoted))")
            #expect(try await pair.container.shell(pair.standby, "\(psql(pair.standbyPort)) -c 'SELECT pg_is_in_recovery()'") == "f\n")
            #expect(try await pair.container.shell(pair.standby, "\(psql(pair.standbyPort)) -c 'SELECT count(*) FROM moved'") == "50\n")
            #expect(try await Self.poll(pair.container, pair.primary, "\(psql(pair.port)) -c 'SELECT pg_is_in_recovery()'", until: "t\n"))
            let replication = "\(psql(pair.standbyPort)) -c 'SELECT application_name, state, sync_state FROM pg_stat_replication'"
            #expect(try await Self.poll(pair.container, pair.standby, replication, until: "standby_0|streaming|quorum\n"))
            // Acted on once: the members have recorded its serial.
            for member in [pair.primary, pair.standby] {
                #expect(try await pair.container.shell(member, "cat /var/lib/mcloud/switchover.serial") == "\(genuine.serial)\n")
            }
            // The new primary reports its standbys every minute, the old one no longer: run its cron line now.
            #expect(try await pair.container.shell(pair.primary, "ls /etc/cron.d").contains("mcloud-replication") == false)
            let cron = try await pair.container.shell(pair.standby, "cat /etc/cron.d/mcloud-replication")
            #expect(cron == "* * * * * root MCLOUD_STANDBYS=1 \(ReplicationReport.script) >>/var/log/mcloud-replication.log 2>&1\n", "\(cron)")
            _ = try await pair.container.shell(pair.standby, "MCLOUD_STANDBYS=1 \(ReplicationReport.script)")
            // Under the first primary's key, as before: status and backups read it there.
            let report = try #require(try await pair.s3.objectIfExists(bucket: pair.bucket, key: DatabaseUserData.replicationKey(server: pair.server)))
            let following = try #require(ReplicationStatus(json: String(decoding: report, as: UTF8.self)))
            #expect(following.server == pair.standbyServer, "\(following)")
            #expect(following.standbys.map { "\($0.name) \($0.state) \($0.sync)" } == ["standby_0 streaming quorum"], "\(following)")
            #expect(following.problems(now: Int(Date().timeIntervalSince1970)).isEmpty, "\(following)")
        }
    }

    @Test func aRedisReplicaReceivesWhatThePrimaryWrites() async throws {
        try await Self.boot("redis") { pair in
            let cli = "REDISCLI_AUTH=$(cat /etc/mcloud/redis-admin) redis-cli -s /run/redis/redis-server.sock --user mcloud-admin"
            #expect(try await Self.poll(pair.container, pair.standby, "\(cli) INFO replication | tr -d '\\r' | grep -x master_link_status:up || true", until: "master_link_status:up\n"))
            #expect(try await pair.container.shell(pair.primary, "\(cli) SET replicated yes") == "OK\n")
            #expect(try await Self.poll(pair.container, pair.standby, "\(cli) GET replicated", until: "yes\n"))
            let role = try await pair.container.shell(pair.primary, "\(cli) INFO replication | tr -d '\\r' | grep -E '^(role|connected_slaves):'")
            #expect(role == "role:master\nconnected_slaves:1\n")
            let report = try #require(try await pair.report())
            #expect(report.standbys.map { "\($0.state) \($0.sync)" } == ["online async"], "\(report)")
            #expect(report.problems(now: Int(Date().timeIntervalSince1970)).isEmpty, "\(report)")
        }
    }

    /// MariaDB: the primary writes rows before the standby exists; the standby, started from GTID 0, replays them and
    /// those written after, over TLS that verifies the primary's certificate, read-only, and acknowledges commits
    /// (semi-synchronous: with its replication stopped a commit waits the 10 s timeout); with another CA it cannot
    /// connect. The password is in its root-only file and nowhere on the standby's process list, journal or cloud-init
    /// output. `SHOW SLAVE STATUS` calls the TLS fields `Master_SSL_*`.
    @Test func aMariaDBStandbyReplaysThePrimaryOverVerifiedTLS() async throws {
        let rows = { (from: Int, to: Int) in
            "mariadb -e 'CREATE DATABASE IF NOT EXISTS shop; CREATE TABLE IF NOT EXISTS shop.orders (id INT PRIMARY KEY, item TEXT); USE shop; INSERT INTO shop.orders SELECT seq, MD5(seq) FROM seq_\(from)_to_\(to)'"
        }
        let checksum = #"mariadb -N -e "SELECT CONCAT(COUNT(*), ':', MD5(GROUP_CONCAT(id, '/', item ORDER BY id))) FROM shop.orders""#
        let status = "mariadb -e 'SHOW SLAVE STATUS\\G' | grep -E '^ *(Slave_IO_Running|Slave_SQL_Running|Master_SSL_Allowed|Master_SSL_Verify_Server_Cert|Using_Gtid):' | tr -s ' '"
        try await Self.boot("mysql", beforeStandby: { container, primary in
            _ = try await container.shell(primary, rows(1, 100))
        }) { pair in
            let replicating = " Slave_IO_Running: Yes\n Slave_SQL_Running: Yes\n Master_SSL_Allowed: Yes\n Master_SSL_Verify_Server_Cert: Yes\n Using_Gtid: Slave_Pos\n"
            #expect(try await Self.poll(pair.container, pair.standby, status, until: replicating))
            let before = try await pair.container.shell(pair.primary, checksum)
            #expect(before.hasPrefix("100:"))
            #expect(try await Self.poll(pair.container, pair.standby, checksum, until: before))
            _ = try await pair.container.shell(pair.primary, rows(101, 200))
            let after = try await pair.container.shell(pair.primary, checksum)
            #expect(after.hasPrefix("200:"))
            #expect(try await Self.poll(pair.container, pair.standby, checksum, until: after))
            // The clients' users and the replication account came from the primary's binary log; the standby is read-only.
            let standbyState = try await pair.container.shell(pair.standby, "mariadb -N -e 'SELECT @@GLOBAL.server_id, COUNT(*) FROM mysql.user WHERE user = \"replicator\"'")
            #expect(standbyState == "2\t1\n")
            // A user without READ_ONLY ADMIN, made on the primary, may write there and not on the standby.
            _ = try await pair.container.shell(pair.primary, "mariadb -e 'CREATE USER probe@localhost; GRANT ALL ON shop.* TO probe@localhost'")
            let probe = "mariadb -u probe -e 'INSERT INTO shop.orders VALUES (1000, \"probe\")'"
            #expect(try await Self.poll(pair.container, pair.standby, "mariadb -N -e 'SELECT COUNT(*) FROM mysql.user WHERE user = \"probe\"'", until: "1\n"))
            let refused = try await pair.container.exec(pair.standby, ["bash", "-c", probe])
            let readOnly = try await pair.container.shell(pair.standby, "mariadb -N -e 'SELECT @@GLOBAL.read_only'")
            #expect(!refused.succeeded && refused.output.contains("--read-only"), "read_only \(readOnly): \(refused.output)")
            _ = try await pair.container.shell(pair.primary, probe + " && mariadb -e 'DELETE FROM shop.orders WHERE id = 1000; DROP USER probe@localhost'")
            #expect(try await Self.poll(pair.container, pair.primary, "mariadb -N -e \"SHOW STATUS WHERE Variable_name IN ('Rpl_semi_sync_master_clients', 'Rpl_semi_sync_master_status')\"", until: "Rpl_semi_sync_master_clients\t1\nRpl_semi_sync_master_status\tON\n"))
            // Semi-synchronous: without the standby's acknowledgement a commit waits the timeout, then the primary goes on.
            _ = try await pair.container.shell(pair.standby, "mariadb -e 'STOP SLAVE'")
            let waited = try await pair.container.shell(pair.primary, "start=$(date +%s); \(rows(201, 201)); echo $(( $(date +%s) - start ))")
            #expect((Int(waited.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 9, "the commit returned after \(waited) s")
            _ = try await pair.container.shell(pair.standby, "mariadb -e 'START SLAVE'")
            #expect(try await Self.poll(pair.container, pair.standby, checksum, until: try await pair.container.shell(pair.primary, checksum)))
            // Nowhere but the root-only file (and the server's own master.info): not in ps, logs or cloud-init's output.
            // The patterns come from the file, so that the search itself puts no password on the process list.
            let file = "/etc/mcloud/access/mysql-replication.password"
            #expect(try await pair.container.shell(pair.standby, "stat -c %a:%U \(file) && cat \(file)") == "600:root\n\(pair.password)\n")
            let leaks = try await pair.container.shell(
                pair.standby, "{ ps -eo args; journalctl --no-pager; cat /var/log/cloud-init*.log /var/lib/mysql/data/*.err 2>/dev/null || true; } | grep -cFf \(file) || true"
            )
            #expect(leaks == "0\n")
            // Another CA: the standby refuses the primary's certificate and does not replicate.
            let wrong = "/etc/mysql/mcloud/other-ca.crt"
            _ = try await pair.container.shell(pair.standby, "cat >\(wrong)", input: Data(pair.otherAuthorityPEM.utf8))
            _ = try await pair.container.shell(pair.standby, "mariadb -e \"STOP SLAVE; CHANGE MASTER TO MASTER_SSL_CA = '\(wrong)'; START SLAVE\"")
            let error = "mariadb -e 'SHOW SLAVE STATUS\\G' | grep -E '^ *(Slave_IO_Running|Last_IO_Errno):' | tr -s ' '"
            #expect(try await Self.poll(pair.container, pair.standby, error, until: " Slave_IO_Running: Connecting\n Last_IO_Errno: 2026\n"))
            _ = try await pair.container.shell(pair.primary, rows(202, 202))
            try await Task.sleep(for: .seconds(3))
            #expect(try await pair.container.shell(pair.standby, checksum).hasPrefix("201:"))
            _ = try await pair.container.shell(pair.standby, "mariadb -e \"STOP SLAVE; CHANGE MASTER TO MASTER_SSL_CA = '/etc/mysql/mcloud/ca.crt'; START SLAVE\"")
            #expect(try await Self.poll(pair.container, pair.standby, checksum, until: try await pair.container.shell(pair.primary, checksum)))
        }
    }

    /// A switchover in a cell of three (docs/databases.md, "Switchover"): the signed order names every member; the
    /// primary demotes, `standby_1` promotes, and `standby_2`, once `standby_1` has promoted, runs `mcloud-engine
    /// repoint` and streams from it without a restart. Both others then stream from the new primary in its quorum, a
    /// row written there reaches `standby_2`, and every row written before is on both.
    @Test func aSwitchoverOfThreeMembersRepointsTheOtherStandbyToTheNewPrimary() async throws {
        try await Self.boot("postgresql", standbys: 2, archives: true) { cell in
            let third = try #require(cell.moreStandbys.first)
            let psql = { (port: Int) in "runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -p \(port)" }
            let streaming = { (port: Int) in "\(psql(port)) -c 'SELECT application_name, state, sync_state FROM pg_stat_replication ORDER BY 1'" }
            #expect(try await Self.poll(cell.container, cell.primary, streaming(cell.port), until: "standby_1|streaming|quorum\nstandby_2|streaming|quorum\n"))
            _ = try await cell.container.shell(cell.primary, "\(psql(cell.port)) -c 'CREATE TABLE moved (id int)' -c 'INSERT INTO moved SELECT generate_series(1, 50)'")
            let now = Int(Date().timeIntervalSince1970)
            let order = SwitchoverOrder(
                application: cell.application, cell: cell.cell, serial: now, notAfter: now + 900, primary: "standby_0", target: "standby_1",
                targetHost: cell.standbyServer, targetPort: cell.standbyPort, members: ["standby_0", "standby_1", "standby_2"]
            )
            try await cell.s3.putObject(bucket: cell.bucket, key: SwitchoverOrder.signatureKey(owner: cell.server), body: Array(try order.signature(root: cell.root).utf8))
            try await cell.s3.putObject(bucket: cell.bucket, key: SwitchoverOrder.key(owner: cell.server), body: order.document, contentType: "application/json")
            func step(_ member: String) async throws -> JSONValue? {
                for _ in 0..<180 {
                    if let bytes = try await cell.s3.objectIfExists(bucket: cell.bucket, key: SwitchoverOrder.stepKey(owner: cell.server, serial: order.serial, member: member)) {
                        return try JSONParser.parse(bytes)
                    }
                    try await Task.sleep(for: .seconds(2))
                }
                return nil
            }
            #expect(try await step("standby_0")?["step"]?.stringValue == "demoted")
            #expect(try await step("standby_1")?["step"]?.stringValue == "promoted")
            let repointed = try await step("standby_2")
            #expect(repointed?["step"]?.stringValue == "repointed", "\(String(describing: repointed))")
            #expect(try await Self.poll(cell.container, cell.standby, streaming(cell.standbyPort), until: "standby_0|streaming|quorum\nstandby_2|streaming|quorum\n"))
            let receiver = "\(psql(third.port)) -c 'SELECT status, sender_host FROM pg_stat_wal_receiver'"
            #expect(try await cell.container.shell(third.instance, receiver) == "streaming|\(cell.standbyServer)\n")
            _ = try await cell.container.shell(cell.standby, "\(psql(cell.standbyPort)) -c 'INSERT INTO moved VALUES (51)'")
            #expect(try await Self.poll(cell.container, third.instance, "\(psql(third.port)) -c 'SELECT count(*) FROM moved'", until: "51\n"))
            #expect(try await Self.poll(cell.container, cell.primary, "\(psql(cell.port)) -c 'SELECT count(*) FROM moved'", until: "51\n"))
            #expect(try await cell.container.shell(third.instance, "\(psql(third.port)) -c 'SELECT pg_is_in_recovery()'") == "t\n")
        }
    }

    /// `command` in `instance` until it prints `expected`, for up to 60 s.
    static func poll(_ container: ContainerBed, _ instance: String, _ command: String, until expected: String) async throws -> Bool {
        for _ in 0..<60 {
            if (try? await container.shell(instance, command)) == expected { return true }
            try await Task.sleep(for: .seconds(1))
        }
        return false
    }

    /// The address member `copy` is reached at from the others' containers, on their own loopback: `10.254.0.1` for
    /// the primary, `10.254.0.2` for the first standby, and so on.
    static func memberAddress(_ copy: Int) -> String { "10.254.0.\(copy + 1)" }

    /// Creates a primary and `standbys` standbys of `engine` through the provider, standby `i`'s port `i` above the
    /// sample's, boots them one after the other, checks the secrets went where they belong, runs `check` and removes
    /// everything however it ends. Each member reaches every other at `memberAddress`, which its server name resolves
    /// to there, forwarded to the host port the other's engine is published on; the primary reaches the standbys'
    /// ports on its own loopback too (a MariaDB primary reads its standbys' lag there). `beforeStandby` runs on the
    /// primary, once it is set up, before the standbys boot. With `archives`, the DR bucket is behind moto's TLS front,
    /// so a PostgreSQL primary archives there and its standbys hold the archive's keys, as the rendering gives them.
    static func boot(
        _ engine: String, standbys: Int = 1, archives: Bool = false, beforeStandby: ((ContainerBed, String) async throws -> Void)? = nil,
        _ check: (Pair) async throws -> Void
    ) async throws {
        let moto = try TestBedEnvironment.load(directory: ProcessInfo.processInfo.environment["MCLOUD_TESTBED_MOTO_DIR"] ?? "/tmp/mcloud-testbed/moto", start: "scripts/testbed/moto.sh start")
        let endpoint = archives ? moto["MCLOUD_TEST_MOTO_TLS_URL"] : nil
        let (beds, identity) = try Beds.withAgeIdentity(
            seed: 11, folder: NSTemporaryDirectory() + "mcloud-standby-bed-\(UUID().uuidString.prefix(8))", extra: archives ? ["AWS_CA_BUNDLE": moto["MCLOUD_TEST_MOTO_CA"]] : [:]
        )
        let reach = ["--reach", "24566"] + (endpoint.map { ["--reach", String($0.split(separator: ":").last ?? "")] } ?? [])
        let test = try #require(EngineSample.debian12.first { $0.engine == engine })
        let run = UUID().uuidString.prefix(8).lowercased()
        let bucket = "mcloud-standby-\(run)"
        try await beds.s3.ensureBucket(.init(name: bucket, expireAfterDays: 7, noncurrentExpireAfterDays: 7))
        let application = "sb-\(run)"
        let copies = Array(0...standbys)
        let names = copies.map { "\(application).payments-db.\($0)" }
        let addresses = names.map { "openstack.bed.DatabaseServer.\($0)" }
        let ports = copies.map { test.port + $0 }
        let access = DatabaseAccess(cell: "payments-db@eu", names: ["payments-db.\(application).svc"], clients: [])
        // The forwarder delivers the other members' connections from 127.0.0.1.
        let roles: [DatabaseReplication] = [.primary(standbys: copies.dropFirst().map(DatabaseReplication.standbyName(copy:)), cidrs: ["127.0.0.0/8"])]
            + copies.dropFirst().map { .standby(name: DatabaseReplication.standbyName(copy: $0), primary: names[0], port: test.port, cidrs: ["127.0.0.0/8"]) }
        var created: [(ObservedResource, DesiredResource)] = []
        let instances = copies.map { "sb-\(engine.prefix(5))-\(run)-\($0)" }
        func cleanUp() async {
            for instance in instances { await beds.container.destroy(instance) }
            for (observed, desired) in created.reversed() { try? await beds.provider.delete(beds.recorded(observed, desired)) }
            try? await beds.s3.deleteBucket(bucket)
        }
        do {
            var userData: [String] = []
            for (copy, name) in names.enumerated() {
                let volume = beds.volume("openstack.bed.Volume.\(name)", name: name)
                created.append((try await beds.provider.create(volume), volume))
                var body = ResourceBody(
                    beds.server(ResourceAddress(addresses[copy]), name: name, test: test, bucket: bucket, volume: volume.address.rawValue, access: access, endpoint: endpoint).body
                )
                    .settingSpec(["replication"], ResourceBody.DatabaseServerField.replication(roles[copy]).value)
                if copy > 0 {
                    body = body.settingSpec(["role"], .string("standby")).settingSpec(["port"], .int(ports[copy])).settingSpec(["replicaOf"], .string(addresses[0]))
                    if !archives { body = body.settingSpec(["backup"], nil) }
                }
                let desired = DesiredResource(
                    address: ResourceAddress(addresses[copy]), provider: "openstack", cloud: "bed", type: "DatabaseServer", body: body.document,
                    dependencies: [volume.address] + (copy > 0 ? [ResourceAddress(addresses[0])] : [])
                )
                #expect(beds.provider.problems(desired: desired).isEmpty)
                let observed = try await beds.provider.create(desired)
                created.append((observed, desired))
                userData.append(try await beds.userData(ofServer: observed.providerID))
            }
            let password = try ReplicationCredential(root: SecretRoot(identity: identity), application: application, cell: access.cell).password.value
            if engine == "postgresql" {
                // Every PostgreSQL member can become a standby: the login once in each, in its root-only password file.
                #expect(userData[0].components(separatedBy: password).count == 2, "the primary has no login for after a switchover")
            } else {
                #expect(!userData[0].contains(password), "the replication password is in the primary's user data")
            }
            for copy in copies.dropFirst() { #expect(userData[copy].contains(password), "standby \(copy) has no login to its primary") }
            // The standbys' ports are published on host ports chosen now, since the primary boots first.
            var hostPorts: [Int] = [0]
            for _ in copies.dropFirst() { hostPorts.append(try #require(freeLoopbackPort())) }
            /// Member `copy` reaches each other standby at its address, and the primary at `primaryPort` once known.
            func reachOthers(_ copy: Int, primaryPort: Int?) -> [String] {
                copies.filter { $0 != copy }.flatMap { other -> [String] in
                    let port = other == 0 ? primaryPort : hostPorts[other]
                    return port.map { ["--reach", "\(Self.memberAddress(other)):\(ports[other])=\($0)"] } ?? []
                }
            }
            func hosts(_ copy: Int) -> String {
                copies.filter { $0 != copy }.map { "\(Self.memberAddress($0)) \(names[$0])" }.joined(separator: "\n")
            }
            try await beds.container.boot(
                instances[0], userData: userData[0],
                options: reach + ["--publish", String(test.port)] + copies.dropFirst().flatMap { ["--reach", "\(ports[$0])=\(hostPorts[$0])"] } + reachOthers(0, primaryPort: nil)
            )
            if engine == "postgresql" { _ = try await beds.container.shell(instances[0], "printf '%s\\n' '\(hosts(0))' >>/etc/hosts") }
            let primaryPort = try await beds.container.port(instances[0], test.port)
            if let beforeStandby {
                try await beds.container.wait(instances[0])
                try await beforeStandby(beds.container, instances[0])
            }
            for copy in copies.dropFirst() {
                try await beds.container.boot(
                    instances[copy], userData: userData[copy],
                    options: reach + reachOthers(copy, primaryPort: primaryPort) + ["--publish", "\(hostPorts[copy]):\(ports[copy])"]
                )
                _ = try await beds.container.shell(instances[copy], "printf '%s\\n' '\(hosts(copy))' >>/etc/hosts")
            }
            for instance in instances { try await beds.container.wait(instance) }
            // A primary whose engine can tell its standbys' lag reports them every minute.
            if EngineCatalog.recipe(engine: test.engine, version: test.version, family: .debian12)?.replication?.report.isEmpty == false {
                #expect(try await beds.container.shell(instances[0], "cat /etc/cron.d/mcloud-replication") == "* * * * * root \(ReplicationReport.script) >>/var/log/mcloud-replication.log 2>&1\n")
            }
            let other = try ApplicationCA.certificatePEM(root: SecretRoot(identity: identity), application: "other-\(application)")
            try await check(Pair(
                primary: instances[0], standby: instances[1], container: beds.container, standbyServer: names[1], port: test.port, standbyPort: ports[1],
                password: password, otherAuthorityPEM: other,
                s3: beds.s3, bucket: bucket, server: names[0], root: SecretRoot(identity: identity), application: application, cell: access.cell,
                moreStandbys: copies.dropFirst(2).map { (instances[$0], names[$0], ports[$0]) }
            ))
        } catch {
            await beds.container.printCloudInitOutput(instances)
            await cleanUp()
            throw error
        }
        await cleanUp()
    }
}

extension Beds {
    /// Beds whose provider derives the servers' secrets from an age identity of `seed`, in a key file in `folder`.
    static func withAgeIdentity(seed: UInt8, folder: String, extra: [String: String] = [:]) throws -> (beds: Beds, identity: AgeIdentity) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let identity = try AgeIdentity(secretKey: [UInt8](repeating: seed, count: 32))
        try Data("\(identity.encoded)\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/age.key"))
        return (try Beds(extra: extra.merging(["MCLOUD_AGE_KEY_FILE": "\(folder)/age.key"]) { $1 }), identity)
    }
}
