import Foundation
import MCloudProvider
@testable import MCloudState
import Testing

/// The PostgreSQL server of `scripts/testbed/postgres.sh start`, found through `MCLOUD_TEST_POSTGRES_URL` or the
/// bed's env file. Without it the tests that need it are skipped locally and fail under CI (`CI` set).
enum PostgresTestBed {
    static let environment = ProcessInfo.processInfo.environment
    static let envFile = (environment["MCLOUD_POSTGRES_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/postgres") + "/env"

    static let url: String? = {
        if let url = environment["MCLOUD_TEST_POSTGRES_URL"] { return url }
        guard let data = FileManager.default.contents(atPath: envFile) else { return nil }
        let prefix = "MCLOUD_TEST_POSTGRES_URL="
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }()

    static var runs: Bool { url != nil || environment["CI"] != nil }

    /// The bed's URL with a workspace of its own, so tests running in parallel never share a state or a lock.
    static func workspaceURL() throws -> String {
        guard let url else { throw Missing(description: "no PostgreSQL test bed: run scripts/testbed/postgres.sh start (looked for \(envFile))") }
        return url + (url.contains("?") ? "&" : "?") + "workspace=t-" + UUID().uuidString.prefix(8).lowercased()
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The error `body` throws, or nil, for tests that look inside it.
    static func error(_ body: () throws(StateError) -> Void) -> StateError? {
        do throws(StateError) { try body() } catch { return error }
        return nil
    }

    /// Runs one statement on its own connection, for setting up and inspecting rows behind the backend's back.
    @discardableResult
    static func sql(_ url: String, _ statement: String, _ parameters: [String?] = []) throws -> [[String?]] {
        try PostgresConnection(PostgresURL(url)).query(statement, parameters, for: "run a test statement")
    }
}

/// A real second mcloud process holding a postgres:// lock: the StateLockHolder executable, built beside the tests.
final class LockHolderProcess {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    let lockID: String

    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("StateLockHolder")
    }

    init(url: String, operation: String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw PostgresTestBed.Missing(description: "\(Self.executable.path) is missing: build with `swift build --build-tests`")
        }
        process.executableURL = Self.executable
        process.arguments = [url, operation]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = try Self.line(from: output)
        guard line.hasPrefix("LOCKED ") else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw PostgresTestBed.Missing(description: "StateLockHolder did not take the lock: \(line)")
        }
        lockID = String(line.dropFirst("LOCKED ".count))
    }

    var pid: Int32 { process.processIdentifier }

    /// Sends one command and returns the line it answers.
    func send(_ command: String) throws -> String {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        return try Self.line(from: output)
    }

    private static func line(from pipe: Pipe) throws -> String {
        var line = Data()
        while let byte = try pipe.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }

    /// SIGKILL and no `waitUntilExit`, which can hang on Linux when called off the main run loop.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
