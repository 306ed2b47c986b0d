public import Foundation

/// A program run to its end: its exit code and what it printed. Runs off the cooperative threads, so tests that run
/// many at once (containers booting in parallel) do not starve the test runner.
public struct Command: Sendable {
    public var exitCode: Int32
    public var stdout: String
    public var stderr: String

    public var succeeded: Bool { exitCode == 0 }
    public var output: String { stdout + stderr }

    /// `executable` with `arguments`, `input` on its standard input, in the test's environment plus `environment`.
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) async throws -> Command {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe(), inputPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
        let collected = Collected()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let group = DispatchGroup()
            for (pipe, isError) in [(out, false), (err, true)] {
                group.enter()
                DispatchQueue.global().async {
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    collected.append(data, error: isError)
                    group.leave()
                }
            }
            process.terminationHandler = { _ in
                group.notify(queue: .global()) { continuation.resume() }
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            if let input {
                DispatchQueue.global().async {
                    inputPipe.fileHandleForWriting.write(input)
                    try? inputPipe.fileHandleForWriting.close()
                }
            }
        }
        return Command(exitCode: process.terminationStatus, stdout: collected.text(error: false), stderr: collected.text(error: true))
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var out = Data()
        private var err = Data()

        func append(_ data: Data, error: Bool) {
            lock.withLock { if error { err.append(data) } else { out.append(data) } }
        }

        func text(error: Bool) -> String {
            lock.withLock { String(decoding: error ? err : out, as: UTF8.self) }
        }
    }
}
