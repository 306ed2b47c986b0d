import Foundation
import MCloudCore
import MCloudSecrets
import MCloudTestSupport
import MCloudYAML
import Testing
@testable import MCloudDatabaseEngines

/// A MariaDB/MySQL primary reports its standbys' lag (`MySQLReplication.report`): each standby registers its server
/// name and port, the primary reads its replica status over verified TLS as the monitor account, whose password only
/// the primary holds, in a root-only option file. The step runs here against a stand-in client that answers as each
/// dialect's server does; the bed runs it against MariaDB (`StandbyBedTests`).
struct MySQLReplicationReportTests {
    /// Every series the catalog offers, each in its own dialect's words.
    static let series: [(series: String, hosts: String, status: String, grant: String, verify: String)] = [
        ("10.6", "SHOW SLAVE HOSTS", "SHOW SLAVE STATUS", "SLAVE MONITOR", "--ssl-verify-server-cert"),
        ("10.11", "SHOW SLAVE HOSTS", "SHOW SLAVE STATUS", "SLAVE MONITOR", "--ssl-verify-server-cert"),
        ("11.4", "SHOW SLAVE HOSTS", "SHOW SLAVE STATUS", "SLAVE MONITOR", "--ssl-verify-server-cert"),
        ("8.0", "SHOW REPLICAS", "SHOW REPLICA STATUS", "REPLICATION CLIENT", "--ssl-mode=VERIFY_IDENTITY"),
        ("8.4", "SHOW REPLICAS", "SHOW REPLICA STATUS", "REPLICATION CLIENT", "--ssl-mode=VERIFY_IDENTITY"),
    ]

    static func recipe(_ series: String) throws -> Recipe {
        try #require(EngineCatalog.recipe(engine: "mysql", version: series, family: .debian12))
    }

    static var monitor: ReplicationCredential {
        get throws { try ReplicationCredential(root: ReplicationUserDataTests.root, application: "retail-bank", cell: "payments-db@eu", account: ReplicationCredential.monitor) }
    }

    /// The monitor's accounts in the primary's SQL, after the replicator's: one per range, over TLS, one privilege.
    static func monitorAccounts(grant: String) throws -> [String] {
        let verifier = try monitor.verifier(.mysqlNative)
        return ["10.0.0.0/255.0.0.0", "192.168.0.0/255.255.0.0"].flatMap { host in
            let account = "'replication_monitor'@'\(host)'"
            return [
                "CREATE USER IF NOT EXISTS \(account) IDENTIFIED WITH mysql_native_password AS '\(verifier)' REQUIRE SSL;",
                "ALTER USER \(account) IDENTIFIED WITH mysql_native_password AS '\(verifier)' REQUIRE SSL;", "GRANT \(grant) ON *.* TO \(account);",
            ]
        }
    }

    /// The primary gets the monitor's password in a root-only option file and its account in the primary's SQL, with
    /// the one privilege that reads replica status; a standby registers its server name and port and holds neither.
    @Test(arguments: series)
    func thePrimaryHoldsTheMonitorsLoginAndAStandbyRegistersWhereItIsReached(
        _ dialect: (series: String, hosts: String, status: String, grant: String, verify: String)
    ) throws {
        let recipe = try Self.recipe(dialect.series)
        let password = try Self.monitor.password.value
        let primary = DatabaseUserData.render(try ReplicationUserDataTests.vm(recipe, ReplicationUserDataTests.primary))
        let files = try UserDataTests.files(primary)
        #expect(files[MySQLReplication.monitorOptionsPath]?["permissions"]?.scalar?.value == "0600", "\(recipe)")
        #expect(files[MySQLReplication.monitorOptionsPath]?["content"]?.scalar?.value.split(separator: "\n").dropFirst().map(String.init) == [
            "[client]", "user = replication_monitor", "password = \(password)",
        ])
        // Once in the user data, in the root-only file; the replicator's password not at all.
        #expect(primary.components(separatedBy: password).count == 2, "\(recipe)")
        #expect(!primary.contains(try ReplicationUserDataTests.credential.password.value), "\(recipe)")
        let sql = try #require(files[MySQLReplication.primarySQLPath]?["content"]?.scalar?.value)
        #expect(Array(sql.split(separator: "\n").map(String.init).suffix(6)) == (try Self.monitorAccounts(grant: dialect.grant)), "\(recipe)")

        let standby = DatabaseUserData.render(try ReplicationUserDataTests.vm(recipe, ReplicationUserDataTests.standby))
        #expect(try UserDataTests.files(standby)[MySQLReplication.monitorOptionsPath] == nil)
        #expect(!standby.contains(password), "\(recipe)")
        let engine = DatabaseUserData.engine(recipe)
        let configure = try #require(engine.range(of: "configure() {"))
        for line in [#"echo "report_host = $MCLOUD_SERVER""#, #"echo "report_port = $PORT""#] {
            let found = try #require(engine.range(of: line), "\(recipe): \(line)")
            #expect(found.lowerBound > configure.lowerBound && found.upperBound < engine.range(of: "secure() {")!.lowerBound, "\(line) is not in configure")
        }
        // The report reads the standbys over TLS that verifies their certificate and name, the password from the file.
        let replicas = try #require(recipe.replication?.report.joined(separator: "\n"))
        for part in [
            "'\(dialect.hosts)'", "\(dialect.status)\\G", "--defaults-extra-file=\(MySQLReplication.monitorOptionsPath) --host=\"$1\"",
            "--ssl-ca=/etc/mysql/mcloud/ca.crt \(dialect.verify)",
        ] {
            #expect(replicas.contains(part), "\(recipe): \(part)")
        }
        #expect(!replicas.contains("password"), "\(recipe)")
    }

    /// The step alone, as `mcloud-engine replicas` runs it, passes bash -n and shellcheck in each dialect.
    @Test(arguments: series.map(\.series))
    func theReportStepPassesBashAndShellcheck(_ series: String) async throws {
        let recipe = try Self.recipe(series)
        let step = try #require(recipe.replication?.report).joined(separator: "\n")
        let problems = try await bashLint("#!/bin/bash\nset -euo pipefail\n\(step)\n")
        #expect(problems == nil, "\(recipe): \(problems ?? "")")
    }

    /// What a standby answers the monitor: its replica status and its semi-synchronous status, vertically (`\G`).
    static func status(_ series: String, io: String, sql: String, behind: String, file: String, position: Int, semiSync: String) -> String {
        let mariadb = !series.hasPrefix("8.")
        let names = mariadb
            ? ["Slave_IO_Running", "Slave_SQL_Running", "Relay_Master_Log_File", "Exec_Master_Log_Pos", "Seconds_Behind_Master", "Rpl_semi_sync_slave_status"]
            : ["Replica_IO_Running", "Replica_SQL_Running", "Relay_Source_Log_File", "Exec_Source_Log_Pos", "Seconds_Behind_Source", "Rpl_semi_sync_replica_status"]
        let binlog = mariadb ? "mariadb-bin" : "mysql-bin"
        return """
            *************************** 1. row ***************************
                           \(mariadb ? "Slave" : "Replica")_IO_State: Waiting for events
                         \(names[0]): \(io)
                        \(names[1]): \(sql)
                    \(names[2]): \(binlog).\(file)
                      \(names[3]): \(position)
                    \(names[4]): \(behind)
                 \(names[1])_State: x
            *************************** 1. row ***************************
            Variable_name: \(names[5])
                    Value: \(semiSync)

            """
    }

    /// The report step of `series` run against a stand-in client that answers as the primary (`here`: `answers`'
    /// `semisync`, `hosts`, `peers`, `binlogs`) or, with `--host`, as that standby (`there`: the answer of its name,
    /// none for one that does not answer), with `/etc/hosts` standing in as the folder's `hosts-file`. The client
    /// logs every argument list to the folder's `arguments`.
    static func run(_ series: String, _ answers: [String: String], hostsFile: String = "") async throws -> (result: Command, folder: String) {
        let recipe = try Self.recipe(series)
        let folder = try UserDataTests.folder()
        let client = series.hasPrefix("8.") ? "mysql" : "mariadb"
        for (name, text) in answers { try Data(text.utf8).write(to: URL(fileURLWithPath: "\(folder)/\(name)")) }
        try Data(hostsFile.utf8).write(to: URL(fileURLWithPath: "\(folder)/hosts-file"))
        let fake = """
            #!/bin/bash
            printf '%s\\n' "$*" >>\(folder)/arguments
            for argument in "$@"; do
              case "$argument" in
                --host=*) host=${argument#--host=}; [ -f "\(folder)/$host" ] || exit 1; cat "\(folder)/$host"; exit 0 ;;
              esac
            done
            case "$*" in
              *"SHOW GLOBAL STATUS"*) cat \(folder)/semisync ;;
              *"SHOW SLAVE HOSTS"* | *"SHOW REPLICAS"*) cat \(folder)/hosts ;;
              *"information_schema.PROCESSLIST"*) cat \(folder)/peers 2>/dev/null || true ;;
              *"SHOW BINARY LOGS"*) cat \(folder)/binlogs ;;
              *) exit 1 ;;
            esac

            """
        try FileManager.default.createDirectory(atPath: "\(folder)/bin", withIntermediateDirectories: true)
        try Data(fake.utf8).write(to: URL(fileURLWithPath: "\(folder)/bin/\(client)"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(folder)/bin/\(client)")
        let options = "\(folder)/monitor.cnf"
        try Data("[client]\nuser = replication_monitor\npassword = secret\n".utf8).write(to: URL(fileURLWithPath: options))
        let step = try #require(recipe.replication?.report).joined(separator: "\n").replacingOccurrences(of: MySQLReplication.monitorOptionsPath, with: options)
            .replacingOccurrences(of: "/etc/hosts", with: "\(folder)/hosts-file")
        let result = try await Command.run("/bin/bash", ["-c", "set -euo pipefail\n" + step], environment: ["PATH": "\(folder)/bin:/usr/bin:/bin"], directory: folder)
        return (result, folder)
    }

    static func semiSync(_ series: String, _ waits: Bool) -> String {
        "\(series.hasPrefix("8.") ? "Rpl_semi_sync_source_status" : "Rpl_semi_sync_master_status")\t\(waits ? "ON" : "OFF")\n"
    }

    static func binlogs(_ series: String) -> String {
        let binlog = series.hasPrefix("8.") ? "mysql-bin" : "mariadb-bin"
        return "\(binlog).000001\t1000\n\(binlog).000002\t500\n"
    }

    /// Three standbys connected and one that does not answer the monitor. The bytes are the primary's binary log from
    /// the standby's executed position to the end of the newest file: 1000 - 900 + 500 for the first. With several
    /// standbys no name is mapped to a replication connection's address, and an earlier mapping is taken out.
    @Test(arguments: [(series, true), (series, false)].flatMap { list, waits in list.map { ($0.series, waits) } })
    func theReportSaysEachStandbysStateSyncLagAndBytes(_ series: String, primaryWaits: Bool) async throws {
        let (result, folder) = try await Self.run(series, [
            "hosts": "2\tshop.db.1\t3307\t1\n3\tshop.db.2\t3307\t1\n4\tshop.db.3\t3307\t1\n5\tshop.db.4\t3307\t1\n",
            "semisync": Self.semiSync(series, primaryWaits), "binlogs": Self.binlogs(series), "peers": "10.0.0.7:40000\n10.0.0.8:40000\n",
            "shop.db.1": Self.status(series, io: "Yes", sql: "Yes", behind: "2", file: "000001", position: 900, semiSync: "ON"),
            "shop.db.2": Self.status(series, io: "Yes", sql: "No", behind: "NULL", file: "000002", position: 200, semiSync: "ON"),
            "shop.db.3": Self.status(series, io: "Connecting", sql: "Yes", behind: "NULL", file: "000002", position: 500, semiSync: "OFF"),
        ], hostsFile: "127.0.0.1 localhost\n10.0.0.9 shop.db.1 # mcloud-replicas\n")
        #expect(result.succeeded, "\(series): \(result.output)")
        let sync = primaryWaits ? "semi-sync" : "async"
        #expect(result.stdout == """
            standby_1\tstreaming\t\(sync)\t2\t600
            standby_2\tsql-stopped\t\(sync)\t0\t300
            standby_3\tconnecting\tasync\t0\t0
            standby_4\tunreachable\tasync\t0\t0

            """, "\(series)")
        #expect(try String(contentsOfFile: "\(folder)/hosts-file", encoding: .utf8) == "127.0.0.1 localhost\n")
        // No password was ever an argument: the monitor's login comes from its option file, named first.
        let arguments = try String(contentsOfFile: "\(folder)/arguments", encoding: .utf8)
        #expect(!arguments.contains("secret"), "\(series): \(arguments)")
        #expect(arguments.split(separator: "\n").filter { $0.contains("--host=") }.allSatisfy { $0.hasPrefix("--defaults-extra-file=\(folder)/monitor.cnf ") })
        // What the primary's report job makes of it: one of four follows, and the leg is flagged.
        let rows = result.stdout.split(separator: "\n").compactMap { line -> ReplicationStatus.Standby? in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5, let lag = Double(fields[3]), let bytes = Int(fields[4]) else { return nil }
            return ReplicationStatus.Standby(name: fields[0], state: fields[1], sync: fields[2], lagSeconds: lag, lagBytes: bytes)
        }
        let report = ReplicationStatus(server: "shop.db.0", at: ReplicationReportTests.now, expected: 4, standbys: rows)
        #expect(report.problems(now: ReplicationReportTests.now) == ["1 of 4 standbys of shop.db.0 follow it"])
    }

    /// One standby whose name does not resolve on the primary (`.invalid` never does): it is mapped to the address of
    /// the one replication connection, in place of the previous run's mapping, and read there.
    @Test(arguments: series.map(\.series))
    func aStandbyNameThatDoesNotResolveIsMappedToItsConnectionsAddress(_ series: String) async throws {
        let (result, folder) = try await Self.run(series, [
            "hosts": "2\tshop-db-1.invalid\t3307\t1\n", "semisync": Self.semiSync(series, true), "binlogs": Self.binlogs(series),
            "peers": "10.0.0.7:51234\n",
            "shop-db-1.invalid": Self.status(series, io: "Yes", sql: "Yes", behind: "0", file: "000002", position: 500, semiSync: "ON"),
        ], hostsFile: "127.0.0.1 localhost\n10.0.0.9 shop-db-1.invalid # mcloud-replicas\n")
        #expect(result.succeeded, "\(series): \(result.output)")
        #expect(result.stdout == "standby_1\tstreaming\tsemi-sync\t0\t0\n", "\(series)")
        #expect(try String(contentsOfFile: "\(folder)/hosts-file", encoding: .utf8) == "127.0.0.1 localhost\n10.0.0.7 shop-db-1.invalid # mcloud-replicas\n")
    }
}
