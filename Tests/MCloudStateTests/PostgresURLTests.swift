import MCloudProvider
@testable import MCloudState
import Testing

@Suite struct PostgresURLTests {
    static let valid: [(text: String, workspace: String, connection: String, source: String)] = [
        ("postgres://mcloud:pw@db:5432/mcloud", "default", "postgres://mcloud:pw@db:5432/mcloud?sslmode=verify-full", "postgres://mcloud@db:5432/mcloud?workspace=default"),
        (
            "postgresql://mcloud:pw@db/mcloud?sslmode=verify-full&workspace=prod-eu&password=pw2", "prod-eu",
            "postgresql://mcloud:pw@db/mcloud?sslmode=verify-full&password=pw2", "postgresql://mcloud@db/mcloud?workspace=prod-eu"
        ),
        ("postgres://db1:5432,db2:5432/state?workspace=a%2Eb", "a.b", "postgres://db1:5432,db2:5432/state?sslmode=verify-full", "postgres://db1:5432,db2:5432/state?workspace=a.b"),
        ("postgres:///mcloud?host=/run/postgresql", "default", "postgres:///mcloud?host=/run/postgresql", "postgres:///mcloud?workspace=default"),
        ("postgres://anna%40corp:p%40ss@db/x", "default", "postgres://anna%40corp:p%40ss@db/x?sslmode=verify-full", "postgres://anna@corp@db/x?workspace=default"),
    ]

    @Test(arguments: valid)
    func theWorkspaceIsTakenOutAndTheSourceHoldsNoCredential(text: String, workspace: String, connection: String, source: String) throws {
        let url = try PostgresURL(text)
        #expect(url.workspace == workspace)
        #expect(url.connectionString == connection)
        #expect(url.source == source)
    }

    /// Regression: a remote state server was reached with libpq's `sslmode=prefer`, plain text whenever the server
    /// (or whoever answers in its place) offers no TLS. Without an `sslmode` of their own, URLs to another machine
    /// get `verify-full`; a Unix socket and loopback, where the beds run, stay as libpq has them.
    static let tls: [(text: String, connection: String)] = [
        ("postgres://u@db.example/x", "postgres://u@db.example/x?sslmode=verify-full"),
        ("postgres://u@10.0.0.5:5432/x?workspace=prod", "postgres://u@10.0.0.5:5432/x?sslmode=verify-full"),
        ("postgres://u@[2001:db8::5]:5432/x", "postgres://u@[2001:db8::5]:5432/x?sslmode=verify-full"),
        ("postgres://u@localhost,db.example/x", "postgres://u@localhost,db.example/x?sslmode=verify-full"),
        ("postgres://u@localhost/x?hostaddr=10.0.0.5", "postgres://u@localhost/x?hostaddr=10.0.0.5&sslmode=verify-full"),
        ("postgres:///x?host=db.example", "postgres:///x?host=db.example&sslmode=verify-full"),
        ("postgres://u@db.example/x?sslmode=require", "postgres://u@db.example/x?sslmode=require"),
        ("postgres://u@127.0.0.1:5432/x", "postgres://u@127.0.0.1:5432/x"),
        ("postgres://u@127.8.9.10/x", "postgres://u@127.8.9.10/x"),
        ("postgres://u@localhost,[::1]:5433/x", "postgres://u@localhost,[::1]:5433/x"),
        ("postgres:///x", "postgres:///x"),
        ("postgres://u@/x?host=%2Frun%2Fpostgresql", "postgres://u@/x?host=%2Frun%2Fpostgresql"),
        ("postgres://u@db.example/x?host=/run/postgresql", "postgres://u@db.example/x?host=/run/postgresql"),
    ]

    @Test(arguments: tls)
    func aRemoteStateServerIsReachedWithVerifiedTLSUnlessTheURLSaysOtherwise(text: String, connection: String) throws {
        #expect(try PostgresURL(text).connectionString == connection)
    }

    static let invalid: [(text: String, message: String)] = [
        ("postgres://u:hunter2@db/x?workspace=", "invalid state URL: workspace \"\" must be 1 to 64 letters, digits, '.', '_' or '-'"),
        ("postgres://u:hunter2@db/x?workspace=a/b", "invalid state URL: workspace \"a/b\" must be 1 to 64 letters, digits, '.', '_' or '-'"),
        ("postgres://u:hunter2@db/x?workspace=a&workspace=b", "invalid state URL: the workspace parameter is given 2 times"),
        ("postgres://u:hunter2@db/x?workspace=%zz", "invalid state URL: the workspace parameter has a malformed %-escape"),
    ]

    @Test(arguments: invalid)
    func unusableWorkspacesAreRefusedWithoutThePassword(text: String, message: String) {
        #expect(performing: { try PostgresURL(text) }, throws: { ($0 as? StateError)?.description == message })
    }

    @Test func theLockKeyIsFixedPerWorkspace() throws {
        #expect(try PostgresURL("postgres://db/x").lockKey == PostgresURL("postgres://other/y?workspace=default").lockKey)
        #expect(try PostgresURL("postgres://db/x?workspace=prod").lockKey != PostgresURL("postgres://db/x?workspace=prod2").lockKey)
        // FNV-1a of "mcloud-state:default": a changed derivation would let two mcloud versions hold one state at once.
        #expect(try PostgresURL("postgres://db/x").lockKey == 0x7068_90fd_acb7_95f2)
    }

    /// Connections that fail before any server answers: libpq's message names what failed, never the password,
    /// even where libpq quotes the part of the URL it could not read.
    static let unreachable: [(url: String, fragment: String)] = [
        ("postgres://mcloud:hunter2@127.0.0.1:1/mcloud", "Connection refused"),
        ("postgres://mcloud@127.0.0.1:1/mcloud?password=hunter2", "Connection refused"),
        ("postgres://mcloud:hunter2@127.0.0.1:1/mcloud?sslmode=sometimes", "invalid sslmode value"),
        ("postgres://mcloud:hunter2%zz@127.0.0.1:1/mcloud", "invalid percent-encoded token"),
    ]

    @Test(arguments: unreachable)
    func aFailedConnectionNamesWhatFailedWithoutThePassword(url: String, fragment: String) throws {
        let backend = try PostgresStateBackend(url: url)
        let caught = PostgresTestBed.error { () throws(StateError) in _ = try backend.read() }
        guard case .database(let source, let operation, let message) = caught else {
            Issue.record("expected a database error, got \(String(describing: caught))")
            return
        }
        #expect(source == "postgres://mcloud@127.0.0.1:1/mcloud?workspace=default" && operation == "connect")
        #expect(message.contains(fragment))
        #expect(caught?.description.contains("hunter2") == false)
        #expect(!message.contains("\n"))
    }
}
