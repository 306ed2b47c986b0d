import Foundation
import MCloudCore
import MCloudSecrets
import MCloudTestSupport
import Testing
@testable import MCloudDatabaseEngines

extension URL {
    /// The URL, with an empty file made there first.
    fileprivate func creatingFile() -> URL {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return self
    }
}

/// Debian's PostgreSQL 15 (the postgres bed's binaries, run here on a cluster of the test's own) with the files a
/// server's user data carries: libpq over TLS, verified against the application's CA by host name, with the derived
/// password gets in; without TLS, with a wrong password, as another client's user, or from outside the client's
/// CIDRs, it does not. The same steps on a booted VM: `DatabaseVMBedTests`.
struct PostgreSQLAccessTests {
    static let binaries = "/usr/lib/postgresql/15/bin"
    static let host = "payments-db.retail-bank-eu.svc"

    static let access = DatabaseAccess(
        cell: "payments-db@eu", names: [host],
        clients: [
            DatabaseAccess.Client(service: "payments-api@eu", user: "payments_api_eu", database: "payments_api_eu", cidrs: ["127.0.0.1/32"]),
            DatabaseAccess.Client(service: "ledger@eu", user: "ledger_eu", database: "ledger_eu", cidrs: ["127.0.0.1/32"]),
            DatabaseAccess.Client(service: "outsider@eu", user: "outsider_eu", database: "outsider_eu", cidrs: ["203.0.113.0/24"]),
        ]
    )

    /// A cluster of its own as Debian's postgres user (initdb refuses root), with the user data's pg_hba.conf, TLS
    /// settings and users; stopped when the body returns.
    static func withServer(
        replication: DatabaseReplication? = nil, _ body: (_ port: Int, _ folder: String, _ server: ServerAccess) async throws -> Void
    ) async throws {
        let root = AccessUserDataTests.root
        let server = try ServerAccess.derive(
            root: root, application: "retail-bank", server: "retail-bank-eu.payments-db.0", engine: .postgresql, access: access, replication: replication
        )
        let folder = try UserDataTests.folder()
        let data = "\(folder)/data"
        let port = Int.random(in: 30_000..<40_000)
        try await expectSuccess(Command.run("/usr/bin/chown", ["postgres:postgres", folder]))
        try await expectSuccess(Command.run("/usr/sbin/runuser", ["-u", "postgres", "--", "\(binaries)/initdb", "-D", data, "-A", "peer", "-U", "postgres"]))
        for (name, content) in [("server.crt", server.certificatePEM), ("server.key", server.privateKeyPEM), ("ca.crt", server.authorityPEM)] {
            try Data(content.utf8).write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
        }
        try Data(AccessFiles.postgresHBA(server.users, replication: server.replication).utf8).write(to: URL(fileURLWithPath: "\(data)/pg_hba.conf"))
        try await expectSuccess(Command.run("/usr/bin/chown", ["postgres:postgres", "\(folder)/server.key", "\(data)/pg_hba.conf"]))
        try await expectSuccess(Command.run("/usr/bin/chmod", ["600", "\(folder)/server.key"]))
        let postgres = try await start(data: data, port: port, folder: folder, log: "log")
        defer {
            if postgres.isRunning { postgres.terminate() }
            postgres.waitUntilExit()
        }
        var sql = AccessFiles.postgresUsers(server.users)
        if let replication = server.replication {
            sql += PostgreSQLReplication.files(replication).filter { $0.path == PostgreSQLReplication.primarySQLPath }.map(\.content).joined() + "SELECT pg_reload_conf();\n"
        }
        try await expectSuccess(Command.run(
            "/usr/sbin/runuser", ["-u", "postgres", "--", "/usr/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", folder, "-p", "\(port)", "-d", "postgres"],
            input: Data(sql.utf8)
        ))
        try await body(port, folder, server)
    }

    /// The server of `data` with the TLS files in `folder`, as a child of the test, not through pg_ctl: its daemon kept
    /// the runner from reaping pg_ctl. Returns once it answers.
    static func start(data: String, port: Int, folder: String, log: String) async throws -> Process {
        let postgres = Process()
        postgres.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
        postgres.arguments = [
            "-u", "postgres", "--", "\(binaries)/postgres", "-D", data, "-p", "\(port)", "-k", folder, "-c", "listen_addresses=127.0.0.1", "-c", "ssl=on",
            "-c", "ssl_cert_file=\(folder)/server.crt", "-c", "ssl_key_file=\(folder)/server.key",
        ]
        postgres.standardOutput = FileHandle.nullDevice
        postgres.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(folder)/\(log)").creatingFile())
        try postgres.run()
        for _ in 0..<100 {
            if try await Command.run("\(binaries)/pg_isready", ["-q", "-h", folder, "-p", "\(port)"]).succeeded { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return postgres
    }

    static func expectSuccess(_ command: Command) {
        #expect(command.succeeded, "\(command.output)")
    }

    /// `channel_binding=disable`: libpq 15 cannot hash an Ed25519-signed certificate for SCRAM's channel binding
    /// ("could not find digest for NID UNDEF"; RFC 5929 defines none for it), so with its default `prefer` it fails
    /// (docs/connectivity.md, "TLS and users on database VMs").
    static func psql(port: Int, folder: String, user: String, database: String, password: String, sslmode: String = "verify-full") async throws -> Command {
        let connection = "host=\(host) hostaddr=127.0.0.1 port=\(port) dbname=\(database) user=\(user) sslmode=\(sslmode) sslrootcert=\(folder)/ca.crt channel_binding=disable"
        return try await Command.run(
            "/usr/bin/psql", ["-X", "-At", "-v", "ON_ERROR_STOP=1", connection, "-c", "CREATE TABLE IF NOT EXISTS t (v text)", "-c", "INSERT INTO t VALUES ('x')", "-c", "SELECT count(*), (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()) FROM t"],
            environment: ["PGPASSWORD": password, "PGCONNECT_TIMEOUT": "5"]
        )
    }

    static func password(_ service: String) throws -> String {
        try ClientCredential(root: AccessUserDataTests.root, application: "retail-bank", cell: "payments-db@eu", service: service).password.value
    }

    @Test func aClientGetsInOnlyOverVerifiedTLSWithItsPasswordToItsOwnDatabase() async throws {
        try await Self.withServer { port, folder, _ in
            let good = try await Self.psql(port: port, folder: folder, user: "payments_api_eu", database: "payments_api_eu", password: Self.password("payments-api@eu"))
            #expect(good.succeeded && good.stdout.hasSuffix("1|t\n"), "\(good.output)")
            let refused: [(String, Command)] = [
                ("plain text", try await Self.psql(port: port, folder: folder, user: "payments_api_eu", database: "payments_api_eu", password: Self.password("payments-api@eu"), sslmode: "disable")),
                ("wrong password", try await Self.psql(port: port, folder: folder, user: "payments_api_eu", database: "payments_api_eu", password: Self.password("ledger@eu"))),
                ("another client's database", try await Self.psql(port: port, folder: folder, user: "ledger_eu", database: "payments_api_eu", password: Self.password("ledger@eu"))),
                ("outside its CIDRs", try await Self.psql(port: port, folder: folder, user: "outsider_eu", database: "outsider_eu", password: Self.password("outsider@eu"))),
            ]
            for (what, command) in refused {
                #expect(!command.succeeded, "\(what) was let in")
                #expect(command.stderr.contains("pg_hba.conf rejects connection") || command.stderr.contains("no pg_hba.conf entry") || command.stderr.contains("password authentication failed"), "\(what): \(command.stderr)")
            }
            // A client that verifies against another application's authority refuses the server.
            let stranger = try ServerAccess.derive(
                root: SecretRoot(identity: AgeIdentity(secretKey: [UInt8](repeating: 8, count: 32))), application: "retail-bank", server: "x", engine: .postgresql,
                access: Self.access
            )
            try Data(stranger.authorityPEM.utf8).write(to: URL(fileURLWithPath: "\(folder)/ca.crt"))
            let unverified = try await Self.psql(port: port, folder: folder, user: "payments_api_eu", database: "payments_api_eu", password: Self.password("payments-api@eu"))
            #expect(!unverified.succeeded && unverified.stderr.contains("certificate verify failed"), "\(unverified.output)")
        }
    }
}
