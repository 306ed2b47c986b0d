public import Foundation
import Glibc
import Synchronization

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
        directory: String? = nil, timeout: Int = defaultTimeout
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
        // A program that never ends (a query waiting for a standby that is gone) must fail its test, not hang the run:
        // it is killed at its time-out, or when the test is cancelled (a suite's time limit).
        let running = Running()
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(timeout))
            if !Task.isCancelled { running.kill(timedOut: true) }
        }
        defer { watchdog.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                process.terminationHandler = { _ in
                    running.ended()
                    continuation.resume()
                }
                do {
                    try process.run()
                    running.started(process.processIdentifier)
                } catch {
                    process.terminationHandler = nil
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            running.kill(timedOut: false)
        }
        let ending = running.ending
        if ending.timedOut {
            throw TimedOut(description: "\(executable) \(arguments.prefix(6).joined(separator: " ")) did not end within \(timeout) s and was killed")
        }
        if ending.killed { throw CancellationError() }
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
            // Once it has ended and been reaped its PID may be another process's: a signal then goes nowhere.
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        return try await body()
    }

    /// How long a program may run unless its caller says otherwise: longer than any step of a bed test takes.
    public static let defaultTimeout = 1800

    public struct TimedOut: Error, CustomStringConvertible {
        public var description: String
    }

    /// The process's ID once started, and whether it was killed: a kill before the start or after the end is none.
    private final class Running: Sendable {
        private let state = Mutex<(pid: Int32, done: Bool, timedOut: Bool, killed: Bool)>((0, false, false, false))

        func started(_ pid: Int32) {
            let kill = state.withLock { state -> Bool in
                state.pid = pid
                return state.killed
            }
            if kill { _ = Glibc.kill(pid, SIGKILL) }
        }

        func ended() { state.withLock { $0.done = true } }

        /// SIGKILL: a test runner's children inherit its blocked SIGTERM.
        func kill(timedOut: Bool) {
            let pid = state.withLock { state -> Int32 in
                guard !state.done, !state.killed else { return 0 }
                state.killed = true
                state.timedOut = timedOut
                return state.pid
            }
            if pid > 0 { _ = Glibc.kill(pid, SIGKILL) }
        }

        var ending: (killed: Bool, timedOut: Bool) { state.withLock { ($0.killed, $0.timedOut) } }
    }
}
