import Foundation
import MCloudSecrets
import MCloudTestSupport
import Testing
@testable import MCloudDatabaseEngines

/// The beds' test application (`scripts/testbed/mcloud-testapp.py`, every service's image in the end-to-end
/// scenario) against Debian's PostgreSQL 15 with a VM's TLS files and users: given the URI mcloud's connection Secret
/// holds, `/write` commits a row over verified TLS with SCRAM-SHA-256 and says when; a wrong password or an unknown CA
/// is a 502 that names the failure and never the password; `/call` answers 200 only when every service it calls does.
@Suite(.serialized) struct TestApplicationTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/testbed/mcloud-testapp.py").path

    struct NotListening: Error, CustomStringConvertible {
        var log: String
        var description: String { "the test application did not say its port within 60 s; its log:\n\(log)" }
    }

    /// The application on a port the kernel picks (`PORT=0`, which it logs) with `environment`, stopped when `body`
    /// returns.
    static func withApplication(_ environment: [String: String], _ body: (_ port: Int) async throws -> Void) async throws {
        let log = NSTemporaryDirectory() + "mcloud-testapp-\(UUID().uuidString.prefix(8)).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        try await Command.whileRunning("/usr/bin/python3", [script], environment: environment.merging(["PORT": "0", "PATH": "/usr/bin:/bin"]) { $1 }, output: log) {
            var port: Int?
            for _ in 0..<600 where port == nil {
                let text = String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self)
                port = text.split(separator: "\n").lazy.compactMap { $0.hasPrefix("mcloud-testapp: listening on port ") ? Int($0.split(separator: " ").last ?? "") : nil }.first
                if port == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            guard let port else { throw NotListening(log: String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self)) }
            try await body(port)
        }
    }

    /// The status and body of GET `path`; status 0 when nothing answered.
    static func get(_ port: Int, _ path: String) async throws -> (status: Int, body: String) {
        let result = try await Command.run("/usr/bin/curl", ["-s", "-m", "30", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// The URI of payments-api's connection Secret for a server on `port`, reached at 127.0.0.1 (`hostaddr`, as libpq
    /// takes it) while TLS verifies the name the certificate holds.
    static func uri(port: Int, folder: String, password: String? = nil) throws -> String {
        let edge = ClientAccess.Edge(
            application: "retail-bank", cell: "payments-db@eu", service: "payments-api@eu", engine: .postgresql, host: PostgreSQLAccessTests.host, port: port,
            user: "payments_api_eu", database: "payments_api_eu", authorityPath: "\(folder)/ca.crt"
        )
        let uri = try ClientAccess.uri(edge, password: password ?? PostgreSQLAccessTests.password("payments-api@eu"))
        return uri + "&hostaddr=127.0.0.1"
    }

    @Test func writeCommitsARowOverVerifiedTLSAndSaysWhen() async throws {
        try await PostgreSQLAccessTests.withServer { port, folder, _ in
            try await Self.withApplication(["PAYMENTS_DB_URI": try Self.uri(port: port, folder: folder), "HOSTNAME": "payments-api-0"]) { application in
                let first = try await Self.get(application, "/write")
                let second = try await Self.get(application, "/write")
                #expect(first.status == 200 && first.body.hasPrefix("{\"PAYMENTS_DB\": {\"at\": \"20") && first.body.hasSuffix("\"id\": 1}}\n"), "\(first)")
                #expect(second.status == 200 && second.body.hasSuffix("\"id\": 2}}\n"), "\(second)")
                let rows = try await Command.run(
                    "/usr/sbin/runuser", ["-u", "postgres", "--", "/usr/bin/psql", "-X", "-At", "-h", folder, "-p", "\(port)", "-d", "payments_api_eu",
                        "-c", "SELECT count(*), min(writer), bool_and(at > now() - interval '1 minute') FROM mcloud_writes"]
                )
                #expect(rows.stdout == "2|payments-api-0|t\n", "\(rows.output)")
            }
        }
    }

    @Test func aRefusedWriteIsA502ThatNamesTheFailureAndNotThePassword() async throws {
        try await PostgreSQLAccessTests.withServer { port, folder, _ in
            let wrong = "Wrong0Password0Of0Thirty0Three0x"
            let otherAuthority = "\(folder)/other-ca.crt"
            try Data(try ApplicationCA.certificatePEM(root: AccessUserDataTests.root, application: "another-application", generation: 1).utf8)
                .write(to: URL(fileURLWithPath: otherAuthority))
            let cases = [
                (try Self.uri(port: port, folder: folder, password: wrong), "password authentication failed for user \\\"payments_api_eu\\\"", wrong),
                (try Self.uri(port: port, folder: folder).replacingOccurrences(of: "\(folder)/ca.crt", with: otherAuthority), "CERTIFICATE_VERIFY_FAILED",
                    try PostgreSQLAccessTests.password("payments-api@eu")),
            ]
            for (uri, failure, password) in cases {
                try await Self.withApplication(["PAYMENTS_DB_URI": uri]) { application in
                    let answer = try await Self.get(application, "/write")
                    #expect(answer.status == 502 && answer.body.contains(failure), "\(answer)")
                    #expect(!answer.body.contains(password), "the answer holds the password")
                }
            }
        }
    }

    @Test func callAnswers200OnlyWhenEveryServiceItCallsDoes() async throws {
        try await Self.withApplication([:]) { callee in
            try await Self.withApplication(["MCLOUD_CALLS": "127.0.0.1:\(callee)"]) { caller in
                let answered = try await Self.get(caller, "/call")
                #expect(answered.status == 200 && answered.body == "{\"127.0.0.1:\(callee)\": 200}\n", "\(answered)")
            }
            try await Self.withApplication(["MCLOUD_CALLS": "127.0.0.1:\(callee),127.0.0.1:1"]) { caller in
                let unanswered = try await Self.get(caller, "/call")
                #expect(unanswered.status == 502 && unanswered.body.contains("\"127.0.0.1:\(callee)\": 200"), "\(unanswered)")
                #expect(unanswered.body.contains("\"127.0.0.1:1\": \"[Errno 111] Connection refused\""), "\(unanswered)")
            }
            let healthy = try await Self.get(callee, "/healthz")
            #expect(healthy.status == 200 && healthy.body == "ok\n")
            #expect(try await Self.get(callee, "/nothing").status == 404)
        }
    }
}
