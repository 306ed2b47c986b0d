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
    let context = CommandContext(stdout: stdout, stderr: stderr, environment: operatorAllowingTheBeds(environment), readLine: { lines.next() })
    let code = await MCloud.main(arguments, context: context)
    return Run(exitCode: code.rawValue, stdout: stdout.text, stderr: stderr.text)
}

/// The tests run mcloud as an operator who allows the Kubernetes bed's kubeconfig, which the fixture catalogs name
/// (docs/security.md, H3), and who holds an age identity (`Fixtures/age.key`), from which database VMs with clients
/// derive their TLS and passwords (docs/connectivity.md), unless a test says otherwise.
func operatorAllowingTheBeds(_ environment: [String: String]) -> [String: String] {
    var environment = environment
    if environment["MCLOUD_ALLOWED_KUBECONFIGS"] == nil {
        let bed = ProcessInfo.processInfo.environment["MCLOUD_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/kubernetes"
        environment["MCLOUD_ALLOWED_KUBECONFIGS"] = bed + "/kubeconfig:" + bed + "/kubeconfig-files"
    }
    if environment["MCLOUD_AGE_KEY_FILE"] == nil, environment["SOPS_AGE_KEY_FILE"] == nil {
        environment["MCLOUD_AGE_KEY_FILE"] = fixtures + "/age.key"
    }
    return environment
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
