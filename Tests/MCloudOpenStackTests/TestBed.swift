import Foundation
import MCloudCore
import MCloudHTTP
import MCloudOpenStack
import MCloudTestSupport
import Testing

/// The OpenStack control plane that `scripts/testbed/openstack.sh up` runs on loopback, described by its env file.
/// Tests that need it fail, never skip, when it is not running.
struct TestBed {
    let values: [String: String]

    static let directory = ProcessInfo.processInfo.environment["MCLOUD_OPENSTACK_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/openstack"

    static func load() throws -> TestBed {
        TestBed(values: try TestBedEnvironment.load(directory: directory, start: "scripts/testbed/openstack.sh up").values)
    }

    typealias Missing = TestBedEnvironment.Missing

    subscript(key: String) -> String { values[key] ?? "" }

    func cloud(_ key: String) throws -> CloudConfig {
        try CloudsYAML.load(cloud: self[key], environment: ["OS_CLIENT_CONFIG_FILE": self["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"]])
    }

    /// A session with a short retry budget, so failures come quickly.
    func session(_ key: String = "MCLOUD_TEST_OS_CLOUD", overrides: [String: String] = [:]) throws -> OpenStackSession {
        try OpenStackSession(
            cloud: try cloud(key), endpointOverrides: overrides, retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.2, budget: 2, deadline: BedTiming.requestDeadline)
        )
    }

    static let fastPoller = Poller(backoff: Backoff(initial: 0.3, factor: 1.5, cap: 2), timeout: 120)

    /// A name unique to one test run.
    static func name(_ purpose: String) -> String {
        "t-\(purpose)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}

/// A script of this target's Fixtures folder.
func fixture(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)").path
}
