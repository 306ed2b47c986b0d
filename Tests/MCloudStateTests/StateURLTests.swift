import MCloudProvider
import MCloudState
import Testing

@Suite struct StateURLTests {
    static let valid: [(text: String, url: StateURL)] = [
        ("file://.mcloud/state.json", .file(path: ".mcloud/state.json")),
        ("file:///var/lib/mcloud/state.json", .file(path: "/var/lib/mcloud/state.json")),
        ("FILE:///tmp/my%20state.json", .file(path: "/tmp/my state.json")),
        ("state/prod.json", .file(path: "state/prod.json")),
        ("/abs/state.json", .file(path: "/abs/state.json")),
        ("postgres://mcloud:pw@db:5432/mcloud", .postgres(connection: "postgres://mcloud:pw@db:5432/mcloud")),
        ("postgresql://db/mcloud", .postgres(connection: "postgresql://db/mcloud")),
    ]

    @Test(arguments: valid)
    func stateURLsAreRecognised(text: String, url: StateURL) throws {
        #expect(try StateURL(parsing: text) == url)
    }

    static let invalid: [(text: String, message: String)] = [
        ("", "invalid state URL: it is empty; use file://PATH or postgres://..."),
        ("file://", "invalid state URL: file:// needs a path, such as file://.mcloud/state.json"),
        ("file://bad%zz", "invalid state URL: file://bad%zz has a malformed %-escape"),
        ("s3://bucket/state", "invalid state URL: unknown backend \"s3\"; mcloud keeps state in file://PATH or postgres://..."),
    ]

    @Test(arguments: invalid)
    func unusableStateURLsAreRefused(text: String, message: String) {
        #expect(performing: { try StateURL(parsing: text) }, throws: { ($0 as? StateError)?.description == message })
    }

    @Test func theDefaultIsTheFileBackendInDotMcloud() throws {
        let backend = try StateURL.default.backend()
        #expect((backend as? FileStateBackend)?.path == ".mcloud/state.json")
        #expect((backend as? FileStateBackend)?.lockPath == ".mcloud/state.json.lock")
    }

    @Test func postgresURLsGiveThePostgresBackendWithoutConnecting() throws {
        let backend = try StateURL(parsing: "postgres://mcloud:hunter2@db.invalid/mcloud?workspace=prod").backend()
        #expect((backend as? PostgresStateBackend)?.workspace == "prod")
        #expect((backend as? PostgresStateBackend)?.source == "postgres://mcloud@db.invalid/mcloud?workspace=prod")
    }
}
