import Foundation
import MCloudCore
import MCloudHTTP
import MCloudKubernetes
import MCloudTestSupport
import Testing

/// The real kube-apiserver that `scripts/testbed/kubernetes.sh start` runs on loopback, described by its env file.
/// Tests that need it fail, never skip, when it is not running.
struct TestBed {
    let values: [String: String]

    static let directory = ProcessInfo.processInfo.environment["MCLOUD_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/kubernetes"

    static func load() throws -> TestBed {
        TestBed(values: try TestBedEnvironment.load(directory: directory, start: "scripts/testbed/kubernetes.sh start").values)
    }

    subscript(key: String) -> String { values[key] ?? "" }

    var kubeconfig: String { self["MCLOUD_TEST_KUBECONFIG"] }
    var server: String { self["MCLOUD_TEST_KUBE_SERVER"] }

    /// A client for one of the bed's kubeconfig contexts, with a short retry budget so failures come quickly.
    func client(
        _ context: String, retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.2, budget: 2, deadline: BedTiming.requestDeadline),
        clock: any WallClock = SystemClock()
    ) throws -> KubernetesClient {
        let config = try KubeconfigLoader.load(environment: ["KUBECONFIG": kubeconfig])
        return KubernetesClient(connection: try config.connection(context: context), environment: [:], retryPolicy: retry, clock: clock)
    }

    /// A namespace name unique to one test run, so tests never see each other's objects.
    static func namespace(_ purpose: String) -> String {
        "t-\(purpose)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}

/// A script of this target's Fixtures folder.
func fixture(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)").path
}
