public import Foundation

/// A program run to its end: its exit code and what it printed. Runs off the cooperative threads, so tests that run
/// many at once (containers booting in parallel) do not starve the test runner.
public struct Command: Sendable {
    public var exitCode: Int32
    public var stdout: String
    public var stderr: String

    public var succeeded: Bool { exitCode == 0 }
    public var output: String { stdout + stderr }

    /// `executable` with `arguments` in `directory`, `input` on its standard input, in the test's environment plus
    /// `environment` (or in `environment` alone when `inheritsEnvironment` is false). Output goes through files, not
    /// pipes: a program that leaves a daemon behind (the container bed's boot) must not keep the test waiting for the
    /// daemon's end.
    public static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:], inheritsEnvironment: Bool = true,
        directory: String? = nil
    ) async throws -> Command {
        let folder = NSTemporaryDirectory() + "mcloud-command-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let paths = (out: folder + "/out", err: folder + "/err", input: folder + "/in")
        for path in [paths.out, paths.err] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = inheritsEnvironment ? ProcessInfo.processInfo.environment.merging(environment) { $1 } : environment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: paths.out))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: paths.err))
        defer {
            try? out.close()
            try? err.close()
        }
        process.standardOutput = out
        process.standardError = err
        if let input {
            try input.write(to: URL(fileURLWithPath: paths.input))
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: paths.input))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        func text(_ path: String) -> String { String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
        return Command(exitCode: process.terminationStatus, stdout: text(paths.out), stderr: text(paths.err))
    }
}

extension Command {
    /// `executable` running in the background while `body` runs, then terminated and reaped; its output goes to the
    /// file `output` when given (discarded otherwise); `environment` alone when given, else the test's.
    public static func whileRunning<Result>(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, output: String? = nil, _ body: () async throws -> Result
    ) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let output {
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        return try await body()
    }
}
