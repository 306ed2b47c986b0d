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
