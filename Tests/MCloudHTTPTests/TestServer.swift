import Foundation
import Testing

/// The Python test server in Fixtures/, started on a free loopback port for one test and stopped after it.
final class TestServer {
    let process = Process()
    let port: Int

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/http_test_server.py").path

    init(arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            if process.isRunning { process.terminate() }
            throw ServerError(message: "the test server did not start: \(text)")
        }
        self.port = port
    }

    /// SIGKILL and no `waitUntilExit`, which can hang on Linux when called off the main run loop.
    /// Only while it runs: once it has ended and been reaped, its PID may be another process's.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    struct ServerError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
