import Foundation
import MCloudCore
import MCloudSecrets
import MCloudTestSupport
import MCloudYAML
import Testing
@testable import MCloudDatabaseEngines

/// A cell with standbys: the primary's user data holds the replication user's verifier, a slot per standby and the
/// replication lines of its pg_hba.conf (or Redis's ACL line), and the password only on PostgreSQL, in a root-only
/// file, for the day a switchover makes it a standby; a standby's holds that password in a root-only file, the
/// primary's names, admits the other members as a primary would (PostgreSQL), and runs `follow` instead of `secure`.
/// Every recipe's `mcloud-engine` has the switchover's `demote` and `promote`, PostgreSQL's real and the others' a
/// refusal.
struct ReplicationUserDataTests {
    static let root = AccessUserDataTests.root
    static let primary = DatabaseReplication.primary(standbys: ["standby_1", "standby_2"], cidrs: ["10.0.0.0/8", "192.168.0.0/16"])
    static let standby = DatabaseReplication.standby(name: "standby_1", primary: "retail-bank-eu.payments-db.0", port: 5432, cidrs: ["10.0.0.0/8", "192.168.0.0/16"])

    static func vm(_ recipe: Recipe, _ replication: DatabaseReplication, primaryAddress: String? = nil) throws -> DatabaseVM {
        var vm = UserDataTests.vm(recipe)
        vm.access = try ServerAccess.derive(
            root: root, application: "retail-bank", server: "retail-bank-eu.payments-db.1", engine: recipe.engine,
            access: DatabaseAccess(cell: "payments-db@eu", names: ["payments-db.retail-bank-eu.svc"], clients: []), replication: replication
        )
        vm.access?.replication?.primaryAddress = primaryAddress
        return vm
    }

    static var credential: ReplicationCredential { get throws { try ReplicationCredential(root: root, application: "retail-bank", cell: "payments-db@eu") } }
    static var redis: Recipe { EngineCatalog.recipes.first { $0.engine == .redis && $0.proof == .bed }! }

    @Test func thePostgreSQLPrimaryMakesTheReplicatorASlotPerStandbyAndWaitsForOneOfThem() throws {
        let text = DatabaseUserData.render(try Self.vm(AccessUserDataTests.postgres, Self.primary))
        let files = try UserDataTests.files(text)
        // The login once, in its root-only file, which `secure` installs for postgres: a switchover may make it a standby.
        let password = try Self.credential.password.value
        #expect(text.components(separatedBy: password).count == 2, "the replication password is elsewhere in the primary's user data")
        #expect(files[PostgreSQLReplication.passwordFilePath]?["permissions"]?.scalar?.value == "0600")
        #expect(files[PostgreSQLReplication.passwordFilePath]?["content"]?.scalar?.value == "*:*:replication:replicator:\(password)\n")
        #expect(DatabaseUserData.engine(AccessUserDataTests.postgres).contains(
            "if [ -s \(PostgreSQLReplication.passwordFilePath) ]; then\n  install -o postgres -g postgres -m 644 \(AccessFiles.authorityPath) \(PostgreSQLReplication.installedAuthority)\n"
                + "  install -o postgres -g postgres -m 600 \(PostgreSQLReplication.passwordFilePath) \(PostgreSQLReplication.installedPasswordFile)\nfi\n"
        ))
        let sql = try #require(files[PostgreSQLReplication.primarySQLPath]?["content"]?.scalar?.value)
        #expect(files[PostgreSQLReplication.primarySQLPath]?["permissions"]?.scalar?.value == "0600")
        #expect(sql.split(separator: "\n").dropFirst().map(String.init) == [
            "SELECT 'CREATE ROLE replicator' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'replicator')", "\\gexec",
            "ALTER ROLE replicator WITH REPLICATION LOGIN PASSWORD '\(try Self.credential.verifier(.scramSHA256))';",
            "SELECT pg_create_physical_replication_slot('standby_1') WHERE NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = 'standby_1');",
            "SELECT pg_create_physical_replication_slot('standby_2') WHERE NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = 'standby_2');",
            "ALTER SYSTEM SET wal_log_hints = on;",
            "ALTER SYSTEM SET synchronous_standby_names = 'ANY 1 (standby_1, standby_2)';",
        ])
        let hba = try #require(files[AccessFiles.postgresHBAPath]?["content"]?.scalar?.value)
        #expect(hba.split(separator: "\n").dropFirst().map(String.init) == [
            "local all all peer",
            "hostssl replication replicator 10.0.0.0/8 scram-sha-256", "hostssl replication replicator 192.168.0.0/16 scram-sha-256",
            "hostnossl all all 0.0.0.0/0 reject", "hostnossl all all ::/0 reject",
        ])
        // Without clients the primary is still secured: its standbys replicate over its TLS.
        #expect(DatabaseUserData.settings(try Self.vm(AccessUserDataTests.postgres, Self.primary)).contains("MCLOUD_ACCESS='1'\n"))
        #expect(DatabaseUserData.engine(AccessUserDataTests.postgres).contains("<\(PostgreSQLReplication.primarySQLPath)\nsystemctl restart"))
    }

    @Test func aPostgreSQLStandbySeedsFromItsPrimaryOverVerifiedTLSWithItsSlot() throws {
        let vm = try Self.vm(AccessUserDataTests.postgres, Self.standby, primaryAddress: "10.0.0.5")
        let files = try UserDataTests.files(DatabaseUserData.render(vm))
        #expect(files[PostgreSQLReplication.passwordFilePath]?["permissions"]?.scalar?.value == "0600")
        #expect(files[PostgreSQLReplication.passwordFilePath]?["content"]?.scalar?.value == "*:*:replication:replicator:\(try Self.credential.password.value)\n")
        #expect(files[PostgreSQLReplication.primarySQLPath] == nil)
        // It admits the other members for replication as the primary does: a switchover may make it the primary.
        let hba = try #require(files[AccessFiles.postgresHBAPath]?["content"]?.scalar?.value)
        #expect(hba.contains("hostssl replication replicator 10.0.0.0/8 scram-sha-256\nhostssl replication replicator 192.168.0.0/16 scram-sha-256\nhostnossl"))
        let settings = DatabaseUserData.settings(vm)
        for line in ["MCLOUD_STANDBY_NAME='standby_1'", "MCLOUD_PRIMARY_HOST='retail-bank-eu.payments-db.0'", "MCLOUD_PRIMARY_PORT='5432'", "MCLOUD_PRIMARY_ADDRESS='10.0.0.5'"] {
            #expect(settings.contains(line + "\n"), "\(line)")
        }
        #expect(!settings.contains(try Self.credential.password.value))
        let engine = DatabaseUserData.engine(AccessUserDataTests.postgres)
        #expect(engine.contains(#"pg_basebackup -D /var/lib/postgresql/15/main -R -X stream -c fast -S "$MCLOUD_STANDBY_NAME" -d "$conninfo""#))
        #expect(engine.contains("sslmode=verify-full sslrootcert=/etc/mcloud/tls/postgres/ca.crt channel_binding=disable"))
        // A standby follows instead of securing: its users come from the primary, and it cannot write them itself.
        let setup = DatabaseUserData.setup
        let follow = try #require(setup.range(of: "mcloud-engine follow"))
        let secure = try #require(setup.range(of: "mcloud-engine secure"))
        #expect(follow.upperBound < secure.lowerBound && setup.contains(#"if [ -n "${MCLOUD_STANDBY_NAME:-}" ]; then"#))
    }

    @Test func aRedisPrimaryAdmitsTheReplicatorForReplicationOnlyAndAReplicaLogsInOverTLS() throws {
        let primary = try UserDataTests.files(DatabaseUserData.render(try Self.vm(Self.redis, Self.primary)))
        let acl = try #require(primary[AccessFiles.redisUsersPath]?["content"]?.scalar?.value)
        #expect(acl.split(separator: "\n").map(String.init) == [
            "user default off resetpass resetkeys resetchannels -@all",
            "user replicator on \(try Self.credential.verifier(.redisSHA256)) resetkeys resetchannels -@all +psync +replconf +ping",
        ])
        let standby = try UserDataTests.files(DatabaseUserData.render(try Self.vm(Self.redis, Self.standby)))
        #expect(standby[RedisReplication.loginPath]?["permissions"]?.scalar?.value == "0600")
        #expect(standby[RedisReplication.loginPath]?["content"]?.scalar?.value == "masteruser replicator\nmasterauth \(try Self.credential.password.value)\n")
        let engine = DatabaseUserData.engine(Self.redis)
        #expect(engine.contains(#"echo "replicaof ${MCLOUD_PRIMARY_ADDRESS:-$MCLOUD_PRIMARY_HOST} $MCLOUD_PRIMARY_PORT""#) && engine.contains("tls-replication yes"))
    }

    static var mariadb: Recipe { EngineCatalog.recipes.first { $0.engine == .mysql && $0.proof == .bed }! }

    /// What each MariaDB server of a cell with standbys gets: the primary the account (from its verifier, over TLS,
    /// replication only) and semi-synchronous commits, a standby its `server_id`, read-only and the password in a
    /// root-only file alone; both a row-based binary log with GTIDs from `configure`'s restart on.
    @Test(arguments: [
        ("primary", primary, [
            "server_id = ${MCLOUD_SERVER_ID:-1}", "log_bin = mariadb-bin", "binlog_format = ROW", "gtid_strict_mode = ON",
            "rpl_semi_sync_master_enabled = ON", "rpl_semi_sync_master_wait_point = AFTER_SYNC", "rpl_semi_sync_master_timeout = 10000",
        ]),
        ("standby", standby, ["read_only = ON", "rpl_semi_sync_slave_enabled = ON", "log_slave_updates = ON"]),
    ])
    func aMariaDBServerOfACellWithStandbys(_ role: String, _ replication: DatabaseReplication, _ settings: [String]) throws {
        let vm = try Self.vm(Self.mariadb, replication)
        let text = DatabaseUserData.render(vm)
        let files = try UserDataTests.files(text)
        let password = try Self.credential.password.value
        let engine = DatabaseUserData.engine(Self.mariadb)
        let configure = try #require(engine.range(of: "configure() {"))
        for line in settings {
            let found = try #require(engine.range(of: "echo '\(line)'") ?? engine.range(of: "echo \"\(line)\""), "\(line)")
            #expect(found.lowerBound > configure.lowerBound && found.upperBound < engine.range(of: "secure() {")!.lowerBound, "\(line) is not in configure")
        }
        if role == "primary" {
            #expect(!text.contains(password), "the replication password is in the primary's user data")
            let verifier = try Self.credential.verifier(.mysqlNative)
            #expect(files[MySQLReplication.primarySQLPath]?["permissions"]?.scalar?.value == "0600")
            #expect(files[MySQLReplication.primarySQLPath]?["content"]?.scalar?.value.split(separator: "\n").dropFirst().map(String.init) == [
                "CREATE USER IF NOT EXISTS 'replicator'@'10.0.0.0/255.0.0.0' IDENTIFIED WITH mysql_native_password AS '\(verifier)' REQUIRE SSL;",
                "ALTER USER 'replicator'@'10.0.0.0/255.0.0.0' IDENTIFIED WITH mysql_native_password AS '\(verifier)' REQUIRE SSL;",
                "GRANT REPLICATION SLAVE ON *.* TO 'replicator'@'10.0.0.0/255.0.0.0';",
                "CREATE USER IF NOT EXISTS 'replicator'@'192.168.0.0/255.255.0.0' IDENTIFIED WITH mysql_native_password AS '\(verifier)' REQUIRE SSL;",
                "ALTER USER 'replicator'@'192.168.0.0/255.255.0.0' IDENTIFIED WITH mysql_native_password AS '\(verifier)' REQUIRE SSL;",
                "GRANT REPLICATION SLAVE ON *.* TO 'replicator'@'192.168.0.0/255.255.0.0';",
            ] + (try MySQLReplicationReportTests.monitorAccounts(grant: "SLAVE MONITOR")))
            #expect(files[MySQLReplication.passwordPath] == nil)
            // The account is loaded after the clients' users, by `secure` and after every restore.
            #expect(engine.contains("[ ! -s \(MySQLReplication.primarySQLPath) ] || mariadb <\(MySQLReplication.primarySQLPath)"))
            #expect(DatabaseUserData.settings(vm).contains("MCLOUD_ACCESS='1'\n") && !DatabaseUserData.settings(vm).contains("MCLOUD_SERVER_ID"))
        } else {
            #expect(files[MySQLReplication.passwordPath]?["permissions"]?.scalar?.value == "0600")
            #expect(files[MySQLReplication.passwordPath]?["content"]?.scalar?.value == password + "\n")
            #expect(files[MySQLReplication.primarySQLPath] == nil)
            // The password once in the whole user data: in the root-only file, never in settings or scripts.
            #expect(text.components(separatedBy: password).count == 2)
            #expect(DatabaseUserData.settings(vm).contains("MCLOUD_SERVER_ID='2'\n"))
            let follow = try #require(engine.range(of: "follow() {"))
            let change = try #require(engine.range(of: "CHANGE MASTER TO MASTER_HOST = '$MCLOUD_PRIMARY_HOST', MASTER_PORT = $MCLOUD_PRIMARY_PORT"))
            #expect(change.lowerBound > follow.lowerBound)
            for option in [
                "MASTER_USER = 'replicator'", "MASTER_PASSWORD = '$password'", "MASTER_SSL = 1", "MASTER_SSL_CA = '/etc/mysql/mcloud/ca.crt'",
                "MASTER_SSL_VERIFY_SERVER_CERT = 1", "MASTER_USE_GTID = slave_pos",
            ] {
                #expect(engine.contains(option), "\(option)")
            }
            // Into the client's stdin, read from the file: never an argument, which `ps` shows.
            #expect(engine.contains("password=$(tr -d '\\n' <\(MySQLReplication.passwordPath))\n  mariadb <<EOF\n"))
        }
    }

    /// Oracle MySQL, which the bed cannot install (checked by shellcheck with every recipe): GTIDs with
    /// auto-positioning, the semi-synchronous plugins, and its words for the same steps, the 8.4 ones on 8.4.
    @Test(arguments: [("8.0", "RESET MASTER;"), ("8.4", "RESET BINARY LOGS AND GTIDS;")])
    func anOracleMySQLStandbyFollowsWithAutoPositionOverVerifiedTLS(_ series: String, _ reset: String) throws {
        let recipe = try #require(EngineCatalog.recipes.first { $0.engine == .mysql && $0.series == series && $0.family == .ubuntu2404 })
        let engine = DatabaseUserData.engine(recipe)
        for line in [
            "echo 'gtid_mode = ON'", "echo 'enforce_gtid_consistency = ON'", "echo 'plugin_load_add = semisync_source.so'",
            "echo 'loose_rpl_semi_sync_source_enabled = ON'", "echo 'plugin_load_add = semisync_replica.so'", "echo 'read_only = ON'",
            "mysql -e '\(reset)'",
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '$MCLOUD_PRIMARY_HOST', SOURCE_PORT = $MCLOUD_PRIMARY_PORT, SOURCE_USER = 'replicator',",
            "SOURCE_PASSWORD = '$password', SOURCE_SSL = 1, SOURCE_SSL_CA = '/etc/mysql/mcloud/ca.crt', SOURCE_SSL_VERIFY_SERVER_CERT = 1,",
            "SOURCE_AUTO_POSITION = 1, SOURCE_CONNECT_RETRY = 5;", "\n\(reset)\nCHANGE REPLICATION SOURCE", "\nSTART REPLICA;\nEOF\n",
            "mysql -e 'SHOW REPLICA STATUS\\G' | grep -q '^ *Replica_IO_Running: Yes$'",
        ] {
            #expect(engine.contains(line), "\(recipe): \(line)")
        }
        #expect(!engine.contains("MASTER_"), "\(recipe)")
        let standby = try Self.vm(recipe, Self.standby)
        let text = DatabaseUserData.render(standby)
        #expect(text.components(separatedBy: try Self.credential.password.value).count == 2)
        #expect(try UserDataTests.files(text)[MySQLReplication.passwordPath]?["permissions"]?.scalar?.value == "0600")
    }

    /// `server_id`s unique in a cell: the primary's 1, a standby's one more than its copy.
    @Test func standbysHaveServerIDsOfTheirOwn() {
        #expect((1...8).map { MySQLReplication.serverID(standby: DatabaseReplication.standbyName(copy: $0)) } == Array(2...9))
        #expect(MySQLReplication.serverID(standby: "reporting") > 1000)
    }

    /// Which engines' VM standbys replicate, and how: what `validate` refuses standbys for and docs/databases.md
    /// states. `series` narrows an engine to the recipes whose series starts with it: MariaDB's and Oracle MySQL's.
    @Test(arguments: [
        (Engine.postgresql, "", Recipe.Replication.Mode?.some(.synchronous)), (.redis, "", .asynchronous), (.postgrespro, "", nil),
        (.mysql, "10.", .semisynchronous), (.mysql, "11.", .semisynchronous), (.mysql, "8.", .semisynchronous), (.clickhouse, "", nil), (.mongodb, "", nil),
    ])
    func theCatalogSaysWhichStandbysReplicate(_ engine: Engine, _ series: String, _ mode: Recipe.Replication.Mode?) {
        let recipes = EngineCatalog.recipes.filter { $0.engine == engine && $0.series.hasPrefix(series) }
        #expect(!recipes.isEmpty)
        for recipe in recipes {
            #expect(recipe.replication?.mode == mode, "\(recipe)")
        }
    }

    /// The switchover's steps in every recipe's `mcloud-engine`: PostgreSQL's, each of its own major, and a refusal
    /// that exits 1 for the engines that cannot switch over (docs/databases.md, "Switchover").
    @Test(arguments: [
        (Engine.postgresql, "", true), (.redis, "", false), (.postgrespro, "", false), (.mysql, "", false), (.clickhouse, "", false), (.mongodb, "", false),
    ])
    func theSwitchoverStepsAreInstalledForEveryEngine(_ engine: Engine, _ series: String, _ switches: Bool) throws {
        let recipes = EngineCatalog.recipes.filter { $0.engine == engine && $0.series.hasPrefix(series) }
        #expect(!recipes.isEmpty)
        for recipe in recipes {
            let script = DatabaseUserData.engine(recipe)
            #expect(script.contains(#"  prepare | configure | secure | follow | replicas | demote | promote | repoint | ready | dump | restore | close-log | log-position | replay-log) "$1" ;;"#))
            for step in ["demote", "promote", "repoint"] {
                let body = try #require(script.range(of: "\n\(step)() {\n").flatMap { start in script[start.upperBound...].range(of: "\n}\n").map { script[start.upperBound..<$0.lowerBound] } })
                if switches {
                    #expect(!body.contains("cannot switch over"), "\(recipe) \(step)")
                } else {
                    #expect(body == #"echo "mcloud-engine \#(step): \#(recipe) cannot switch over" >&2"# + "\nexit 1", "\(recipe) \(step)")
                }
            }
            guard switches else { continue }
            let demote = PostgreSQLReplication.demote(major: recipe.series, service: recipe.service).joined(separator: "\n")
            #expect(script.contains(demote) && script.contains(PostgreSQLReplication.promote) && script.contains(PostgreSQLReplication.repoint), "\(recipe)")
            #expect(demote.contains("/usr/lib/postgresql/\(recipe.series)/bin/pg_controldata \(recipe.dataDirectory)"), "\(recipe)")
        }
    }

    /// What demote does, in order: every refusal before the server is touched; the clean stop; the LSN printed; the
    /// signal and the new upstream in place while the server is stopped, so it never starts as a primary; then the
    /// start. Promote: the wait before anything changes, the synchronous names before `pg_promote`, the slots after.
    @Test func theSwitchoverStepsChangeNothingBeforeTheirChecksAndNeverStartAPrimary() throws {
        let demote = PostgreSQLReplication.demote(major: "15", service: "postgresql@15-main").joined(separator: "\n")
        func position(_ text: String, _ part: String) throws -> String.Index { try #require(text.range(of: part), "\(part)").lowerBound }
        let order = try [
            #"refuse "this server is not a primary"#, "systemctl stop postgresql@15-main", "Latest checkpoint location", #"echo "primary_conninfo = '$conninfo'""#,
            #"echo "primary_slot_name = '$MCLOUD_MEMBER_NAME'""#, "/var/lib/postgresql/15/main/standby.signal", "systemctl start postgresql@15-main",
        ].map { try position(demote, $0) }
        #expect(order == order.sorted())
        #expect(demote.contains("application_name=$MCLOUD_MEMBER_NAME") && demote.contains("sslmode=verify-full") && demote.contains("channel_binding=disable"))
        #expect(demote.contains("(primary_conninfo|primary_slot_name|synchronous_standby_names)"))
        let promote = PostgreSQLReplication.promote
        let steps = try [
            #"refuse "this server is not a standby"#, "for _ in $(seq 120)", "pg_last_wal_replay_lsn() > '$MCLOUD_SWITCHOVER_LSN'::pg_lsn",
            "ALTER SYSTEM SET synchronous_standby_names = 'ANY 1 (${names%, })'", "pg_promote(true, 60)", "pg_create_physical_replication_slot('$member', true)",
            "ALTER SYSTEM RESET primary_conninfo",
        ].map { try position(promote, $0) }
        #expect(steps == steps.sorted())
    }

    /// `demote` follows the primary its caller names, not the one a former standby's settings still name; every other
    /// step reads the settings.
    @Test(arguments: [
        ("demote", "retail-bank-eu.payments-db.1|5433|"), ("replicas", "retail-bank-eu.payments-db.0|5432|10.0.0.5"),
    ])
    func demoteTakesTheNewPrimaryFromItsCaller(_ step: String, _ expected: String) async throws {
        let folder = try UserDataTests.folder()
        let settings = "\(folder)/database.conf"
        try Data(DatabaseUserData.settings(try Self.vm(AccessUserDataTests.postgres, Self.standby, primaryAddress: "10.0.0.5")).utf8).write(to: URL(fileURLWithPath: settings))
        let script = DatabaseUserData.engine(AccessUserDataTests.postgres)
        let header = try #require(script.range(of: "\nprepare() {")).lowerBound
        let text = script[..<header].replacingOccurrences(of: DatabaseUserData.settingsPath, with: settings)
            + "\n" + #"printf '%s|%s|%s' "$MCLOUD_PRIMARY_HOST" "$MCLOUD_PRIMARY_PORT" "${MCLOUD_PRIMARY_ADDRESS:-}""#
        let run = try await Command.run(
            "/bin/bash", ["-c", text, "mcloud-engine", step], environment: ["MCLOUD_PRIMARY_HOST": "retail-bank-eu.payments-db.1", "MCLOUD_PRIMARY_PORT": "5433"]
        )
        #expect(run.stdout == expected, "\(run.output)")
    }

    /// Names and CIDRs go into pg_hba.conf and SQL unquoted: anything but what rendering writes is refused.
    @Test(arguments: [
        (DatabaseReplication.primary(standbys: ["standby_1'; DROP"], cidrs: []), #"spec.replication: "standby_1'; DROP" is not an engine-safe standby name (lowercase letters, digits and _)"#),
        (.primary(standbys: ["standby_1"], cidrs: ["10.0.0.0/8 trust"]), #"spec.replication: "10.0.0.0/8 trust" is not a CIDR"#),
        (.standby(name: "standby_1", primary: "db 0", port: 5432, cidrs: []), #"spec.replication: the primary "db 0" is not a host name"#),
        (.standby(name: "standby_1", primary: "db.0", port: 0, cidrs: []), "spec.replication: port 0 is not a TCP port"),
        (.standby(name: "standby_1", primary: "db.0", port: 5432, cidrs: ["0.0.0.0/0 trust"]), #"spec.replication: "0.0.0.0/0 trust" is not a CIDR"#),
    ])
    func malformedReplicationIsRefused(_ replication: DatabaseReplication, _ message: String) {
        #expect(throws: SecretsError.invalidInput(reason: message)) { try ServerReplication.validate(replication) }
    }
}
