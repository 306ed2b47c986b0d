import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStackProvider
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing

/// Database servers with clients, booted for real: the OpenStack provider derives their TLS files and users from an
/// age key file in its environment into the user data, the container bed boots that user data, and a client on the
/// host (another network namespace, as a pod in another cloud is) connects through the published port: over TLS
/// verified against the application's CA by host name, with the password derived for its edge, it writes and reads
/// a row; without TLS, with a wrong password, or as another service's user, it is refused. The clients' CIDRs are
/// every address, as the bed's forwarder decides the source the server sees; `PostgreSQLAccessTests` and
/// `AccessUserDataTests` hold the CIDRs. Fails, never skips, without the beds (openstack.sh up, moto.sh start,
/// container.sh start).
@Suite(.timeLimit(.minutes(20))) struct DatabaseAccessBedTests {
    static let host = "payments-db.retail-bank-eu.svc"
    static let clients = [
        DatabaseAccess.Client(service: "payments-api@eu", user: "payments_api_eu", database: "payments_api_eu", cidrs: ["0.0.0.0/0", "::/0"]),
        DatabaseAccess.Client(service: "ledger@eu", user: "ledger_eu", database: "ledger_eu", cidrs: ["0.0.0.0/0", "::/0"]),
    ]

    /// A booted server as its clients see it: the host port, the CA's file and each client's derived password.
    struct Booted {
        var port: Int
        var folder: String
        var passwords: [String: String]
        /// Where the VM runs, for what only its own administration sees.
        var container: ContainerBed
        var instance: String

        var authority: String { "\(folder)/ca.crt" }
    }

    @Test func aBootedPostgreSQLAcceptsOnlyVerifiedTLSWithTheDerivedPassword() async throws {
        try await Self.boot("postgresql", verifier: "SCRAM-SHA-256$4096:") { server in
            func psql(_ password: String, sslmode: String) async throws -> Command {
                let connection = "host=\(Self.host) hostaddr=127.0.0.1 port=\(server.port) dbname=payments_api_eu user=payments_api_eu sslmode=\(sslmode) sslrootcert=\(server.authority) channel_binding=disable"
                return try await Command.run(
                    "/usr/bin/psql",
                    ["-X", "-At", "-v", "ON_ERROR_STOP=1", connection, "-c", "CREATE TABLE IF NOT EXISTS t (v text)", "-c", "INSERT INTO t VALUES ('x')", "-c", "SELECT count(*) FROM t"],
                    environment: ["PGPASSWORD": password, "PGCONNECT_TIMEOUT": "10"]
                )
            }
            let password = try #require(server.passwords["payments-api@eu"])
            let good = try await psql(password, sslmode: "verify-full")
            #expect(good.succeeded && good.stdout.hasSuffix("INSERT 0 1\n1\n"), "\(good.output)")
            let plain = try await psql(password, sslmode: "disable")
            #expect(!plain.succeeded && plain.stderr.contains("pg_hba.conf rejects connection"), "\(plain.output)")
            let wrong = try await psql(password + "x", sslmode: "verify-full")
            #expect(!wrong.succeeded && wrong.stderr.contains("password authentication failed"), "\(wrong.output)")
        }
    }

    /// A new dependent of a running PostgreSQL server (docs/connectivity.md, "A new dependent"): its user is in the
    /// server's user data, so the plan replaces the server rather than plan an update that would never reach it. As
    /// apply does, the server is deleted and made again with the new user data; the new VM (a container on the same
    /// disk file) finds the old one's data on its volume and keeps every row, and admits the new client with its
    /// derived password over verified TLS, and the first one still.
    @Test func aNewDependentMakesTheServerAgainOnItsVolumeKeepingItsRows() async throws {
        try await Self.makeAgain("postgresql") { server, password in
            func psql(_ client: DatabaseAccess.Client, _ sql: String) async throws -> Command {
                let connection = "host=\(Self.host) hostaddr=127.0.0.1 port=\(server.port) dbname=\(client.database) user=\(client.user) sslmode=verify-full sslrootcert=\(server.authority) channel_binding=disable"
                return try await Command.run("/usr/bin/psql", ["-X", "-At", "-v", "ON_ERROR_STOP=1", connection, "-c", sql], environment: ["PGPASSWORD": try password(client), "PGCONNECT_TIMEOUT": "10"])
            }
            let written = try await psql(Self.clients[0], "CREATE TABLE t AS SELECT generate_series(1, 3) AS id")
            #expect(written.succeeded, "\(written.output)")
        } after: { server, password in
            func psql(_ client: DatabaseAccess.Client, _ sql: String) async throws -> Command {
                let connection = "host=\(Self.host) hostaddr=127.0.0.1 port=\(server.port) dbname=\(client.database) user=\(client.user) sslmode=verify-full sslrootcert=\(server.authority) channel_binding=disable"
                return try await Command.run("/usr/bin/psql", ["-X", "-At", "-v", "ON_ERROR_STOP=1", connection, "-c", sql], environment: ["PGPASSWORD": try password(client), "PGCONNECT_TIMEOUT": "10"])
            }
            let kept = try await psql(Self.clients[0], "SELECT count(*) FROM t")
            #expect(kept.succeeded && kept.stdout == "3\n", "\(kept.output)")
            let added = try await psql(Self.clients[1], "CREATE TABLE u (v text); INSERT INTO u VALUES ('x'); SELECT count(*) FROM u")
            #expect(added.succeeded && added.stdout.hasSuffix("1\n"), "\(added.output)")
        }
    }

    /// The other engines made again on their volume the same way, checked by the VM's own administration: the rows
    /// (keys) written before are there, and the new dependent's user is made. (engine, write, count, the new user)
    @Test(arguments: [
        ("mysql", "mariadb -e 'CREATE DATABASE keep; CREATE TABLE keep.t (id INT); INSERT INTO keep.t VALUES (1), (2), (3)'",
         "mariadb -N -e 'SELECT count(*) FROM keep.t'", "mariadb -N -e \"SELECT count(DISTINCT user) FROM mysql.user WHERE user = 'ledger_eu'\""),
        ("redis", "REDISCLI_AUTH=$(cat /etc/mcloud/redis-admin) redis-cli -s /run/redis/redis-server.sock --user mcloud-admin MSET keep:1 1 keep:2 2 keep:3 3 >/dev/null",
         "REDISCLI_AUTH=$(cat /etc/mcloud/redis-admin) redis-cli -s /run/redis/redis-server.sock --user mcloud-admin --scan --pattern 'keep:*' | wc -l",
         "REDISCLI_AUTH=$(cat /etc/mcloud/redis-admin) redis-cli -s /run/redis/redis-server.sock --user mcloud-admin ACL USERS | grep -cx ledger_eu"),
        ("clickhouse",
         "c() { clickhouse-client --config-file /etc/mcloud/clickhouse-client.xml --host 127.0.0.1 --port \"$PORT\" -q \"$1\"; }; c 'CREATE TABLE default.keep (id UInt8) ENGINE = MergeTree ORDER BY id'; c 'INSERT INTO default.keep VALUES (1), (2), (3)'",
         "clickhouse-client --config-file /etc/mcloud/clickhouse-client.xml --host 127.0.0.1 --port \"$PORT\" -q 'SELECT count() FROM default.keep'",
         "grep -c '<ledger_eu>' /etc/clickhouse-server/users.d/70-mcloud.xml"),
    ])
    func theOtherEnginesKeepTheirDataWhenMadeAgainOnTheirVolume(_ engine: String, _ write: String, _ count: String, _ user: String) async throws {
        func shell(_ server: Booted, _ command: String) async throws -> String {
            try await server.container.shell(server.instance, ". /etc/mcloud/database.conf; \(command)")
        }
        try await Self.makeAgain(engine) { server, _ in
            _ = try await shell(server, write)
        } after: { server, _ in
            let counted = try await shell(server, count)
            let users = try await shell(server, user)
            #expect(counted == "3\n" && users == "1\n", "\(engine): \(counted) rows (keys), \(users) users of the new dependent")
        }
    }

    /// Makes a server of `engine` with the first client, boots it on a disk file and runs `before`; then, as apply
    /// replaces it for the second client (the reason checked), deletes it, makes it again with both clients, boots
    /// that on the same disk file and runs `after`. `password` derives a client's password.
    static func makeAgain(
        _ engine: String, before: (Booted, (DatabaseAccess.Client) throws -> String) async throws -> Void,
        after: (Booted, (DatabaseAccess.Client) throws -> String) async throws -> Void
    ) async throws {
        let folder = NSTemporaryDirectory() + "mcloud-new-dependent-\(UUID().uuidString.prefix(8))"
        let (beds, identity) = try Beds.withAgeIdentity(seed: 9, folder: folder)
        let test = try #require(EngineSample.debian12.first { $0.engine == engine })
        let run = UUID().uuidString.prefix(8).lowercased()
        let bucket = "mcloud-new-dependent-\(run)"
        try await beds.s3.ensureBucket(.init(name: bucket, expireAfterDays: 7, noncurrentExpireAfterDays: 7))
        let server = "nd-\(run).payments-db.0"
        let address = ResourceAddress("openstack.bed.DatabaseServer.\(server)")
        let names = [Self.host, "\(Self.host).cluster.local", "localhost"]
        let volumeAddress = "openstack.bed.Volume.\(server)"
        let volume = try await beds.provider.create(beds.volume(volumeAddress, name: server))
        let first = beds.server(address, name: server, test: test, bucket: bucket, volume: volumeAddress, access: DatabaseAccess(cell: "payments-db@eu", names: names, clients: [Self.clients[0]]))
        let second = beds.server(address, name: server, test: test, bucket: bucket, volume: volumeAddress, access: DatabaseAccess(cell: "payments-db@eu", names: names, clients: Self.clients))
        let disk = "\(folder)/data.img"
        #expect(FileManager.default.createFile(atPath: disk, contents: nil))
        try FileHandle(forWritingAtPath: disk).map { handle in
            try handle.truncate(atOffset: 2 << 30)
            try handle.close()
        }
        let instances = ["nd-\(run)-a", "nd-\(run)-b"]
        var made: [(ObservedResource, DesiredResource)] = []
        func cleanUp() async {
            for instance in instances { await beds.container.destroy(instance) }
            for (observed, desired) in made { try? await beds.provider.delete(beds.recorded(observed, desired)) }
            try? await beds.provider.delete(beds.recorded(volume, beds.volume(volumeAddress, name: server)))
            try? await beds.s3.deleteBucket(bucket)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let password = { (client: DatabaseAccess.Client) throws -> String in
            try ClientCredential(root: SecretRoot(identity: identity), application: "nd-\(run)", cell: "payments-db@eu", service: client.service).password.value
        }
        /// Boots `instance` on the disk file with the user data Nova holds for `observed`.
        func boot(_ instance: String, _ observed: ObservedResource) async throws -> Booted {
            try await beds.container.boot(
                instance, userData: try await beds.userData(ofServer: observed.providerID), options: ["--reach", "24566", "--publish", String(test.port), "--disk-file", disk]
            )
            try await beds.container.wait(instance)
            _ = try await beds.container.shell(instance, "mcloud-engine ready")
            try Data(try await beds.container.shell(instance, "cat /etc/mcloud/tls/ca.crt").utf8).write(to: URL(fileURLWithPath: "\(folder)/ca.crt"))
            return Booted(port: try await beds.container.port(instance, test.port), folder: folder, passwords: [:], container: beds.container, instance: instance)
        }
        do {
            let created = try await beds.provider.create(first)
            made.append((created, first))
            try await before(try await boot(instances[0], created), password)
            #expect(beds.provider.replacementReasons(desired: second, current: created.attributes) == [
                "spec.access changed: its clients' users and its certificate live in the server's user data, which cannot change",
            ])
            await beds.container.destroy(instances[0])
            try await beds.provider.delete(beds.recorded(created, first))
            made.removeAll()
            let remade = try await beds.provider.create(second)
            made.append((remade, second))
            try await after(try await boot(instances[1], remade), password)
        } catch {
            await beds.container.printCloudInitOutput(instances)
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    /// MariaDB 10.11 from Debian's packages: the client verifies the server's certificate by a name it holds, and the
    /// server takes only TLS and only each client's own password on its own database, before and after a restore.
    /// The MariaDB client has no `hostaddr`: the certificate also names `localhost`, which resolves to the published
    /// port everywhere, where a mount namespace over /etc/hosts cannot be made (a chroot, as fresh-machine.sh's).
    @Test func aBootedMariaDBAcceptsOnlyVerifiedTLSWithTheDerivedPasswordOnItsOwnDatabase() async throws {
        try await Self.boot("mysql", verifier: "IDENTIFIED WITH mysql_native_password AS '*") { server in
            func mariadb(_ user: String, _ password: String, database: String = "payments_api_eu", host: String = "localhost", tls: [String]) async throws -> Command {
                let client = ["mariadb", "--no-defaults", "--protocol=TCP", "--host=\(host)", "--port=\(server.port)", "--user=\(user)", "--password=\(password)",
                    "--connect-timeout=10", "-N", "-B"] + tls + [database, "-e", "CREATE TABLE IF NOT EXISTS t (v text); INSERT INTO t VALUES ('x'); SELECT count(*) FROM t"]
                return try await Command.run("/usr/bin/mariadb", Array(client.dropFirst()))
            }
            let verified = ["--ssl-verify-server-cert", "--ssl-ca=\(server.authority)"]
            let password = try #require(server.passwords["payments-api@eu"])
            let good = try await mariadb("payments_api_eu", password, tls: verified)
            #expect(good.succeeded && good.stdout == "1\n", "\(good.output)")
            let unnamed = try await mariadb("payments_api_eu", password, host: "127.0.0.1", tls: verified)
            #expect(!unnamed.succeeded, "a name the certificate does not hold must fail verification: \(unnamed.output)")
            // `REQUIRE SSL` answers first, as a denied login; `require_secure_transport` refuses every other account too.
            let plain = try await mariadb("payments_api_eu", password, tls: ["--skip-ssl"])
            #expect(!plain.succeeded && plain.stderr.contains("Access denied for user 'payments_api_eu'"), "\(plain.output)")
            let settings = try await server.container.shell(server.instance, "mariadb -N -B -e 'SELECT @@require_secure_transport, @@have_ssl'")
            #expect(settings == "1\tYES\n", "require_secure_transport and have_ssl: \(settings)")
            let wrong = try await mariadb("payments_api_eu", password + "x", tls: verified)
            #expect(!wrong.succeeded && wrong.stderr.contains("Access denied for user 'payments_api_eu'"), "\(wrong.output)")
            let other = try await mariadb("ledger_eu", try #require(server.passwords["ledger@eu"]), tls: verified)
            #expect(!other.succeeded && other.stderr.contains("to database 'payments_api_eu'"), "\(other.output)")
            // A restore loads the users of its dump's day and gives the clients' users again: the row and the login stay.
            _ = try await server.container.shell(server.instance, "OUT=/tmp/access.sql.gz mcloud-engine dump && IN=/tmp/access.sql.gz mcloud-engine restore")
            let restored = try await mariadb("payments_api_eu", password, tls: verified)
            #expect(restored.succeeded && restored.stdout == "2\n", "\(restored.output)")
        }
    }

    /// ClickHouse 18.16 from Debian's packages: only the native protocol's TLS port listens, the client verifies the
    /// server's certificate, and each client's user reaches its own database with its own password only, before and
    /// after a restore. The client is Debian's clickhouse-client 18.16 on the host, given the CA; it checks the chain
    /// but not the name (it hands its TLS library the address it resolved, which no certificate of a name holds), so
    /// `openssl s_client` checks the name, as a driver that verifies host names does.
    @Test func aBootedClickHouseAcceptsOnlyVerifiedTLSWithTheDerivedPasswordOnItsOwnDatabase() async throws {
        try await Self.boot("clickhouse", verifier: "<password_sha256_hex>") { server in
            let configuration = "\(server.folder)/clickhouse-client.xml"
            try Data("""
                <config><openSSL><client>
                <loadDefaultCAFile>false</loadDefaultCAFile><caConfig>\(server.authority)</caConfig>
                <verificationMode>strict</verificationMode>
                <invalidCertificateHandler><name>RejectCertificateHandler</name></invalidCertificateHandler>
                </client></openSSL></config>
                """.utf8).write(to: URL(fileURLWithPath: configuration))
            func clickhouse(_ user: String, _ password: String, database: String? = "payments_api_eu", secure: Bool = true, _ query: String) async throws -> Command {
                let tls = secure ? ["--config-file", configuration, "--secure"] : []
                return try await Command.run(
                    "/usr/bin/clickhouse-client",
                    tls + ["--host", "localhost", "--port", String(server.port), "--user", user, "--password", password, "--connect_timeout", "10"]
                        + (database.map { ["--database", $0] } ?? []) + ["--query", query]
                )
            }
            let password = try #require(server.passwords["payments-api@eu"])
            let made = try await clickhouse("payments_api_eu", password, "CREATE TABLE IF NOT EXISTS t (v String) ENGINE = MergeTree ORDER BY v")
            #expect(made.succeeded, "\(made.output)")
            let written = try await clickhouse("payments_api_eu", password, "INSERT INTO t VALUES ('x')")
            #expect(written.succeeded, "\(written.output)")
            let read = try await clickhouse("payments_api_eu", password, "SELECT count() FROM t")
            #expect(read.succeeded && read.stdout == "1\n", "\(read.output)")
            func verify(_ name: String) async throws -> Command {
                try await Command.run(
                    "/usr/bin/openssl",
                    ["s_client", "-connect", "127.0.0.1:\(server.port)", "-CAfile", server.authority, "-verify_hostname", name, "-verify_return_error", "-brief"],
                    input: Data()
                )
            }
            let named = try await verify(Self.host)
            #expect(named.succeeded && named.output.contains("Verification: OK"), "\(named.output)")
            let unnamed = try await verify("db.example.net")
            #expect(!unnamed.succeeded, "a name the certificate does not hold must fail verification: \(unnamed.output)")
            let untrusted = try await Command.run("/usr/bin/clickhouse-client", ["--secure", "--host", "localhost", "--port", String(server.port), "--query", "SELECT 1"])
            #expect(!untrusted.succeeded && untrusted.output.contains("certificate verify failed"), "without the CA: \(untrusted.output)")
            let plain = try await clickhouse("payments_api_eu", password, secure: false, "SELECT 1")
            #expect(!plain.succeeded && plain.stdout.isEmpty, "\(plain.output)")
            let listening = try await server.container.shell(server.instance, "ss -Hltnp | grep clickhouse | awk '{print $4}' | sort")
            #expect(listening == "0.0.0.0:9001\n", "ClickHouse listens on its TLS port only: \(listening)")
            let wrong = try await clickhouse("payments_api_eu", password + "x", "SELECT 1")
            #expect(!wrong.succeeded && wrong.output.contains("Wrong password for user payments_api_eu"), "\(wrong.output)")
            // 18.16 ends the handshake of a user asking for a database it may not use without a word: ask in the query.
            let other = try await clickhouse("ledger_eu", try #require(server.passwords["ledger@eu"]), database: nil, "SELECT count() FROM payments_api_eu.t")
            #expect(!other.succeeded && other.output.contains("Access denied to database payments_api_eu"), "\(other.output)")
            let created = try await clickhouse("payments_api_eu", password, "CREATE DATABASE another")
            #expect(!created.succeeded && created.output.contains("Access denied to database another"), "\(created.output)")
            // The VM's own administrator dumps and restores over TLS; the users live in the configuration, so they stay.
            _ = try await server.container.shell(server.instance, "OUT=/tmp/access.tar.gz mcloud-engine dump")
            let dropped = try await clickhouse("payments_api_eu", password, "DROP TABLE t")
            #expect(dropped.succeeded, "\(dropped.output)")
            _ = try await server.container.shell(server.instance, "IN=/tmp/access.tar.gz mcloud-engine restore")
            let restored = try await clickhouse("payments_api_eu", password, "SELECT count() FROM t")
            #expect(restored.succeeded && restored.stdout == "1\n", "\(restored.output)")
        }
    }

    /// Boots the Debian 12 sample of `engine` with `clients` from the provider's user data, which must hold `verifier`
    /// and no client's password, with the container bed's `bootOptions` beside its own, runs `connect` against it,
    /// and removes the server, its volume and bucket however that ends (printing cloud-init's output when it fails).
    static func boot(
        _ engine: String, verifier: String, clients: [DatabaseAccess.Client] = clients, bootOptions: [String] = [], _ connect: (Booted) async throws -> Void
    ) async throws {
        let folder = NSTemporaryDirectory() + "mcloud-access-bed-\(UUID().uuidString.prefix(8))"
        let (beds, identity) = try Beds.withAgeIdentity(seed: 9, folder: folder)
        let test = try #require(EngineSample.debian12.first { $0.engine == engine })
        let run = UUID().uuidString.prefix(8).lowercased()
        let bucket = "mcloud-vm-tls-\(run)"
        try await beds.s3.ensureBucket(.init(name: bucket, expireAfterDays: 7, noncurrentExpireAfterDays: 7))
        let server = "tls-\(run).payments-db.0"
        let access = DatabaseAccess(cell: "payments-db@eu", names: [Self.host, "\(Self.host).cluster.local", "localhost"], clients: clients)
        let volumeAddress = "openstack.bed.Volume.\(server)"
        let volume = try await beds.provider.create(beds.volume(volumeAddress, name: server))
        let desired = beds.server("openstack.bed.DatabaseServer.\(server)", name: server, test: test, bucket: bucket, volume: volumeAddress, access: access)
        #expect(beds.provider.problems(desired: desired).isEmpty)
        let created = try await beds.provider.create(desired)
        let instance = "vm-tls-\(run)"
        func cleanUp() async throws {
            await beds.container.destroy(instance)
            try await beds.provider.delete(beds.recorded(created, desired))
            try await beds.provider.delete(beds.recorded(volume, beds.volume(volumeAddress, name: server)))
            try await beds.s3.deleteBucket(bucket)
        }
        do {
            let userData = try await beds.userData(ofServer: created.providerID)
            // The application is what the body's labels name (`Beds.metadata`: the first part of the name).
            var passwords: [String: String] = [:]
            for client in clients {
                let password = try ClientCredential(
                    root: SecretRoot(identity: identity), application: String(server.split(separator: ".")[0]), cell: access.cell, service: client.service
                ).password.value
                #expect(!userData.contains(password), "\(client.service)'s password is in the user data")
                passwords[client.service] = password
            }
            #expect(userData.contains(verifier))
            try await beds.container.boot(instance, userData: userData, options: ["--reach", "24566", "--publish", String(test.port)] + bootOptions)
            try await beds.container.wait(instance)
            _ = try await beds.container.shell(instance, "mcloud-engine ready")
            let authority = try await beds.container.shell(instance, "cat /etc/mcloud/tls/ca.crt")
            try Data(authority.utf8).write(to: URL(fileURLWithPath: "\(folder)/ca.crt"))
            let port = try await beds.container.port(instance, test.port)
            try await connect(Booted(port: port, folder: folder, passwords: passwords, container: beds.container, instance: instance))
        } catch {
            await beds.container.printCloudInitOutput([instance])
            try await cleanUp()
            throw error
        }
        try await cleanUp()
    }
}
