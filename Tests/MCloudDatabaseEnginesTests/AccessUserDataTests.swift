import Foundation
import MCloudCore
import MCloudSecrets
import MCloudTestSupport
import MCloudYAML
import Testing
@testable import MCloudDatabaseEngines

/// A server with clients: its user data carries the TLS files and, per client, a user with the verifier of its
/// password, never the password; PostgreSQL admits each client only over TLS, to its own database, from its CIDRs.
struct AccessUserDataTests {
    static let root = SecretRoot(identity: try! AgeIdentity(secretKey: [UInt8](repeating: 7, count: 32)))
    static let access = DatabaseAccess(
        cell: "payments-db@eu", names: ["payments-db.retail-bank-eu.svc", "payments-db.retail-bank-eu.svc.cluster.local"],
        clients: [
            DatabaseAccess.Client(service: "payments-api@eu", user: "payments_api_eu", database: "payments_api_eu", cidrs: ["203.0.113.0/24", "2001:db8::/64"]),
            DatabaseAccess.Client(service: "ledger@eu", user: "ledger_eu", database: "ledger_eu", cidrs: ["198.51.100.7/32"]),
        ]
    )

    static func vm(_ recipe: Recipe, access: DatabaseAccess = access) throws -> DatabaseVM {
        var vm = UserDataTests.vm(recipe)
        vm.access = try ServerAccess.derive(root: root, application: "retail-bank", server: "retail-bank-eu.payments-db.0", engine: recipe.engine, access: access)
        return vm
    }

    static var postgres: Recipe { EngineCatalog.recipes.first { $0.engine == .postgresql && $0.proof == .bed }! }

    @Test func thePostgreSQLUserDataHoldsTheTLSFilesAndTheClientsVerifiersButNoPassword() throws {
        let vm = try Self.vm(Self.postgres)
        let text = DatabaseUserData.render(vm)
        let files = try UserDataTests.files(text)
        for (path, permissions) in [(AccessFiles.authorityPath, "0644"), (AccessFiles.certificatePath, "0644"), (AccessFiles.keyPath, "0600"), (AccessFiles.postgresUsersPath, "0600")] {
            #expect(files[path]?["permissions"]?.scalar?.value == permissions, "\(path)")
        }
        #expect(files[AccessFiles.keyPath]?["content"]?.scalar?.value.hasPrefix("-----BEGIN PRIVATE KEY-----\n") == true)
        let users = try #require(files[AccessFiles.postgresUsersPath]?["content"]?.scalar?.value)
        for client in Self.access.clients {
            let credential = try ClientCredential(root: Self.root, application: "retail-bank", cell: "payments-db@eu", service: client.service)
            #expect(!text.contains(credential.password.value), "\(client.service)'s password is in the user data")
            #expect(users.contains("ALTER ROLE \(client.user) WITH LOGIN PASSWORD '\(try credential.verifier(.scramSHA256))';"))
        }
        let hba = try #require(files[AccessFiles.postgresHBAPath]?["content"]?.scalar?.value)
        #expect(hba.split(separator: "\n").dropFirst() == [
            "local all all peer",
            "hostssl payments_api_eu payments_api_eu 203.0.113.0/24 scram-sha-256", "hostssl payments_api_eu payments_api_eu 2001:db8::/64 scram-sha-256",
            "hostssl ledger_eu ledger_eu 198.51.100.7/32 scram-sha-256",
            "hostnossl all all 0.0.0.0/0 reject", "hostnossl all all ::/0 reject",
        ])
        #expect(DatabaseUserData.settings(vm).contains("MCLOUD_ACCESS='1'\n"))
        let setup = DatabaseUserData.setup
        let restore = try #require(setup.range(of: "mcloud-restore --recovery-point"))
        let secure = try #require(setup.range(of: "mcloud-engine secure"))
        let schedule = try #require(setup.range(of: "/etc/cron.d/mcloud-backup"))
        #expect(restore.upperBound < secure.lowerBound && secure.upperBound < schedule.lowerBound)
    }

    /// Redis: `default` off and stripped of its password-less flag, each client's hash limited to its prefix, and once
    /// secured, `ready` and `dump` go through the Unix socket as the VM's own administrator.
    @Test func theRedisUserDataGivesEachClientItsHashAndPrefixAndTurnsDefaultOff() throws {
        let redis = try #require(EngineCatalog.recipes.first { $0.engine == .redis && $0.proof == .bed })
        let vm = try Self.vm(redis)
        let files = try UserDataTests.files(DatabaseUserData.render(vm))
        let acl = try #require(files[AccessFiles.redisUsersPath]?["content"]?.scalar?.value)
        #expect(files[AccessFiles.redisUsersPath]?["permissions"]?.scalar?.value == "0600")
        let hash = try ClientCredential(root: Self.root, application: "retail-bank", cell: "payments-db@eu", service: "payments-api@eu").verifier(.redisSHA256)
        #expect(acl.split(separator: "\n").map(String.init) == [
            "user default off resetpass resetkeys resetchannels -@all",
            "user payments_api_eu on \(hash) resetkeys resetchannels ~payments_api_eu:* &payments_api_eu:* +@all -@admin -@dangerous",
            "user ledger_eu on \(try ClientCredential(root: Self.root, application: "retail-bank", cell: "payments-db@eu", service: "ledger@eu").verifier(.redisSHA256)) resetkeys resetchannels ~ledger_eu:* &ledger_eu:* +@all -@admin -@dangerous",
        ])
        #expect(DatabaseUserData.settings(vm).contains("MCLOUD_ACCESS='1'\n"))
        let engine = DatabaseUserData.engine(redis)
        #expect(engine.contains("port 0\ntls-port $PORT\n") && engine.contains("redis-cli -s /run/redis/redis-server.sock --user mcloud-admin"))
    }

    /// ClickHouse, both configuration roots: per client its SHA-256, its networks and its own database; once secured
    /// only the native protocol's TLS port listens, and `ready`, `dump` and `restore` go over it as the VM's own
    /// administrator, from the loopback only.
    @Test(arguments: EngineCatalog.recipes.filter { $0.engine == .clickhouse && ($0.proof == .bed || $0.series == "25.8") && $0.family == .debian12 })
    func theClickHouseUserDataGivesEachClientItsHashAndNetworksOnItsOwnDatabase(_ recipe: Recipe) throws {
        let vm = try Self.vm(recipe)
        let files = try UserDataTests.files(DatabaseUserData.render(vm))
        let users = try #require(files[AccessFiles.clickhouseUsersPath]?["content"]?.scalar?.value)
        #expect(files[AccessFiles.clickhouseUsersPath]?["permissions"]?.scalar?.value == "0600")
        let hash = try ClientCredential(root: Self.root, application: "retail-bank", cell: "payments-db@eu", service: "payments-api@eu").verifier(.sha256Hex)
        #expect(users.split(separator: "\n").dropFirst().prefix(7).map(String.init) == [
            "<payments_api_eu>", "    <password_sha256_hex>\(hash)</password_sha256_hex>",
            "    <networks><ip>203.0.113.0/24</ip><ip>2001:db8::/64</ip></networks>", "    <profile>default</profile>", "    <quota>default</quota>",
            "    <allow_databases><database>payments_api_eu</database></allow_databases>", "</payments_api_eu>",
        ])
        #expect(files[AccessFiles.clickhouseDatabasesPath]?["content"]?.scalar?.value == "CREATE DATABASE IF NOT EXISTS payments_api_eu;\nCREATE DATABASE IF NOT EXISTS ledger_eu;\n")
        #expect(DatabaseUserData.settings(vm).contains("MCLOUD_ACCESS='1'\n"))
        let engine = DatabaseUserData.engine(recipe)
        let root = recipe.source == .distribution ? "yandex" : "clickhouse"
        for line in ["<\(root)>", "<tcp_port remove=\"remove\"/>", "<http_port remove=\"remove\"/>", "<tcp_port_secure>$PORT</tcp_port_secure>", "echo '<\(root)><users>'"] {
            #expect(engine.contains(line), "\(line)")
        }
        #expect(engine.contains("clickhouse-client --config-file /etc/mcloud/clickhouse-client.xml --host 127.0.0.1 --port \"$PORT\""))
    }

    /// MariaDB and MySQL: per client and source network an account with the native verifier and `REQUIRE SSL`, rights
    /// on its own database only; TLS with the server's certificate and plain text refused for every TCP client.
    @Test(arguments: EngineCatalog.recipes.filter { $0.engine == .mysql && ($0.proof == .bed || $0.series == "8.4") })
    func theMariaDBUserDataGivesEachClientItsVerifierOverTLSOnItsOwnDatabase(_ recipe: Recipe) throws {
        let access = DatabaseAccess(
            cell: Self.access.cell, names: Self.access.names,
            clients: [
                DatabaseAccess.Client(service: "payments-api@eu", user: "payments_api_eu", database: "payments_api_eu", cidrs: ["203.0.113.9/24", "0.0.0.0/0", "::/0"]),
                DatabaseAccess.Client(service: "ledger@eu", user: "ledger_eu", database: "ledger_eu", cidrs: ["198.51.100.7/32"]),
            ]
        )
        let vm = try Self.vm(recipe, access: access)
        let text = DatabaseUserData.render(vm)
        let files = try UserDataTests.files(text)
        #expect(files[AccessFiles.mysqlUsersPath]?["permissions"]?.scalar?.value == "0600")
        #expect(files[AccessFiles.keyPath]?["permissions"]?.scalar?.value == "0600")
        let users = try #require(files[AccessFiles.mysqlUsersPath]?["content"]?.scalar?.value)
        var verifiers: [String] = []
        for client in access.clients {
            let credential = try ClientCredential(root: Self.root, application: "retail-bank", cell: "payments-db@eu", service: client.service)
            #expect(!text.contains(credential.password.value), "\(client.service)'s password is in the user data")
            verifiers.append(try credential.verifier(.mysqlNative))
        }
        func account(_ user: String, _ host: String, _ verifier: String) -> [String] {
            let identified = "IDENTIFIED WITH mysql_native_password AS '\(verifier)' REQUIRE SSL;"
            return [
                "CREATE USER IF NOT EXISTS '\(user)'@'\(host)' \(identified)", "ALTER USER '\(user)'@'\(host)' \(identified)",
                "GRANT ALL ON \(user).* TO '\(user)'@'\(host)';",
            ]
        }
        #expect(Array(users.split(separator: "\n").dropFirst().map(String.init)) == ["CREATE DATABASE IF NOT EXISTS payments_api_eu;"]
            + account("payments_api_eu", "203.0.113.0/255.255.255.0", verifiers[0]) + account("payments_api_eu", "%", verifiers[0])
            + ["CREATE DATABASE IF NOT EXISTS ledger_eu;"] + account("ledger_eu", "198.51.100.7", verifiers[1]))
        #expect(verifiers.allSatisfy { $0.count == 41 && $0.hasPrefix("*") })
        #expect(DatabaseUserData.settings(vm).contains("MCLOUD_ACCESS='1'\n"))
        let engine = DatabaseUserData.engine(recipe)
        #expect(engine.contains("require_secure_transport = ON\nskip_name_resolve = ON\n") || engine.contains("skip_name_resolve = ON\nmysql_native_password = ON\n"))
        #expect(engine.contains("mysql_native_password = ON") == (recipe.series == "8.4"), "only MySQL 8.4 loads the plugin on request")
        #expect(engine.contains("ssl_cert = /etc/mysql/mcloud/server.crt\nssl_key = /etc/mysql/mcloud/server.key\nssl_ca = /etc/mysql/mcloud/ca.crt\n"))
    }

    /// A restore loads the users of the day of its dump: once TLS is on, the clients' users are given again after it.
    @Test func aMariaDBRestoreGivesTheClientsUsersAgainOnceTLSIsOn() throws {
        let mariadb = try #require(EngineCatalog.recipes.first { $0.engine == .mysql && $0.proof == .bed })
        let lines = mariadb.restore.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.first == #"gunzip -c "$IN" | mariadb"#)
        #expect(lines.dropFirst().first == "if [ -e /etc/mysql/mariadb.conf.d/zz-mcloud-tls.cnf ]; then")
        #expect(lines.contains("mariadb <\(AccessFiles.mysqlUsersPath)"))
    }

    @Test(arguments: [
        ("10.1.2.3/16", "10.1.0.0/255.255.0.0"), ("203.0.113.16/28", "203.0.113.16/255.255.255.240"), ("198.51.100.7/32", "198.51.100.7"),
        ("10.0.0.0/1", "0.0.0.0/128.0.0.0"), ("0.0.0.0/0", "%"), ("::/0", "%"),
    ])
    func aCIDRBecomesTheNetworkAndMaskMariaDBCompares(_ cidr: String, _ host: String) {
        #expect(AccessFiles.mysqlHost(cidr) == host)
    }

    @Test(arguments: [
        ("an IPv6 network", DatabaseAccess.Client(service: "a@eu", user: "a", database: "a", cidrs: ["2001:db8::/64"]), "not IPv6"),
        ("an IPv6 address", DatabaseAccess.Client(service: "a@eu", user: "a", database: "a", cidrs: ["2001:db8::1/128"]), "not IPv6"),
        ("a user name over MySQL's 32 characters", DatabaseAccess.Client(service: "a@eu", user: String(repeating: "a", count: 33), database: "a", cidrs: ["10.0.0.0/8"]), "32"),
    ])
    func aMariaDBClientTheEngineCannotExpressIsAPlanProblem(_ what: String, _ client: DatabaseAccess.Client, _ reason: String) {
        let access = DatabaseAccess(cell: "a@eu", names: ["a.ns.svc"], clients: [client])
        #expect(throws: SecretsError.self, "\(what)") { try ServerAccess.validate(access, engine: .mysql) }
        #expect(throws: SecretsError.self, "\(what)") {
            try ServerAccess.derive(root: Self.root, application: "retail-bank", server: "a.db.0", engine: .mysql, access: access)
        }
        #expect(ServerAccess.problems(engine: "mariadb", access: access, environment: [:]).contains { $0.contains(reason) }, "\(what)")
        #expect(!ServerAccess.problems(engine: "postgresql", access: access, environment: [:]).contains { $0.contains(reason) }, "\(what)")
    }

    @Test func aServerWithoutClientsOrOnAnEngineWithoutUsersGetsNoAccessStep() throws {
        #expect(!DatabaseUserData.settings(UserDataTests.vm(Self.postgres)).contains("MCLOUD_ACCESS"))
        let mongodb = try #require(EngineCatalog.recipes.first { $0.engine == .mongodb })
        #expect(throws: SecretsError.self) { try Self.vm(mongodb) }
        #expect(!ServerAccess.needsRoot(engine: "mongodb", access: Self.access))
        #expect(ServerAccess.needsRoot(engine: "clickhouse", access: Self.access))
        #expect(ServerAccess.needsRoot(engine: "mariadb", access: Self.access))
        #expect(ServerAccess.needsRoot(engine: "postgresql", access: Self.access))
        #expect(!ServerAccess.needsRoot(engine: "postgresql", access: DatabaseAccess(cell: "a@eu", names: [], clients: [])))
    }

    @Test(arguments: [
        ("user", DatabaseAccess.Client(service: "a@eu", user: "a; DROP ROLE postgres", database: "a", cidrs: ["10.0.0.0/8"])),
        ("database", DatabaseAccess.Client(service: "a@eu", user: "a", database: "A-b", cidrs: ["10.0.0.0/8"])),
        ("cidr", DatabaseAccess.Client(service: "a@eu", user: "a", database: "a", cidrs: ["10.0.0.0/8 trust"])),
        ("cidr without length", DatabaseAccess.Client(service: "a@eu", user: "a", database: "a", cidrs: ["10.0.0.1"])),
    ])
    func aBodyWhoseNamesWouldBreakOutOfTheConfigurationIsRefused(_ field: String, _ client: DatabaseAccess.Client) {
        let access = DatabaseAccess(cell: "a@eu", names: ["a.ns.svc"], clients: [client])
        #expect(throws: SecretsError.self, "\(field)") { try ServerAccess.validate(access) }
        #expect(ServerAccess.problems(engine: "postgresql", access: access, environment: [:]).contains { $0.contains("spec.access") })
    }

    /// Plan time, not apply: a missing identity is a problem of the desired server, naming the file looked for.
    @Test func aServerWithClientsAndNoAgeIdentityIsAPlanProblem() throws {
        let missing = ServerAccess.problems(engine: "postgresql", access: Self.access, environment: ["MCLOUD_AGE_KEY_FILE": "/nonexistent/age.key"])
        #expect(missing.count == 1 && missing[0].contains("/nonexistent/age.key"), "\(missing)")
        let folder = try UserDataTests.folder()
        try Data("# test\n\(try AgeIdentity(secretKey: [UInt8](repeating: 7, count: 32)).encoded)\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/age.key"))
        #expect(ServerAccess.problems(engine: "postgresql", access: Self.access, environment: ["MCLOUD_AGE_KEY_FILE": "\(folder)/age.key"]).isEmpty)
        #expect(ServerAccess.problems(engine: "mongodb", access: Self.access, environment: [:]).isEmpty)
    }
}
