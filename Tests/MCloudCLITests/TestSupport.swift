import Foundation
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
func mcloudRun(_ arguments: [String]) -> Run {
    let stdout = BufferedOutput()
    let stderr = BufferedOutput()
    let code = MCloud.main(arguments, context: CommandContext(stdout: stdout, stderr: stderr, environment: [:]))
    return Run(exitCode: code.rawValue, stdout: stdout.text, stderr: stderr.text)
}
