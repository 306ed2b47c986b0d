public import Foundation

/// A Python helper (a test server or a fault proxy) started for one test: it prints `PORT n` when it listens, and
/// is killed when the test lets go of it.
public final class ScriptProcess: @unchecked Sendable {
    public let process = Process()
    public let port: Int

    public init(_ script: String, _ arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw TestBedEnvironment.Missing("\((script as NSString).lastPathComponent) did not start: \(text)")
        }
        self.port = port
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    /// Only while it runs: once it has ended and been reaped, its PID may be another process's (a container's).
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
