import Foundation
import Synchronization
import MCloudCLI

/// What an in-process run of `mcloud` printed, and its exit code.
struct Run {
    var exitCode: Int32
    var stdout: String
    var stderr: String
}

/// The repository's root, where Manifests/ and Providers/ live.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

/// Runs `mcloud` in-process.
func mcloudRun(_ arguments: [String], environment: [String: String] = [:], input: [String] = []) async -> Run {
    let stdout = BufferedOutput()
    let stderr = BufferedOutput()
    let lines = LineQueue(input)
    let context = CommandContext(stdout: stdout, stderr: stderr, environment: environment, readLine: { lines.next() })
    let code = await MCloud.main(arguments, context: context)
    return Run(exitCode: code.rawValue, stdout: stdout.text, stderr: stderr.text)
}

/// Standard input for an in-process run, one line per read.
final class LineQueue: Sendable {
    private let lines: Mutex<[String]>

    init(_ lines: [String]) {
        self.lines = Mutex(lines)
    }

    func next() -> String? {
        lines.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
