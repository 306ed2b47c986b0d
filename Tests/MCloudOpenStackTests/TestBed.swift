import Foundation
import MCloudHTTP
import MCloudOpenStack
import Testing

/// The OpenStack control plane that `scripts/testbed/openstack.sh up` runs on loopback, described by its env file.
/// Tests that need it fail, never skip, when it is not running.
struct TestBed {
    let values: [String: String]

    static let directory = ProcessInfo.processInfo.environment["MCLOUD_OPENSTACK_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/openstack"

    static func load() throws -> TestBed {
        guard let data = FileManager.default.contents(atPath: "\(directory)/env") else {
            throw Missing(message: "no OpenStack test bed: run scripts/testbed/openstack.sh up (looked for \(directory)/env)")
        }
        var values: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return TestBed(values: values)
    }

    struct Missing: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    subscript(key: String) -> String { values[key] ?? "" }

    func cloud(_ key: String) throws -> CloudConfig {
        try CloudsYAML.load(cloud: self[key], environment: ["OS_CLIENT_CONFIG_FILE": self["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"]])
    }

    /// A session with a short retry budget, so failures come quickly.
    func session(_ key: String = "MCLOUD_TEST_OS_CLOUD", overrides: [String: String] = [:]) throws -> OpenStackSession {
        try OpenStackSession(
            cloud: try cloud(key), endpointOverrides: overrides, retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.2, budget: 2)
        )
    }

    static let fastPoller = Poller(initialDelay: 0.3, maxDelay: 2, timeout: 120)

    /// A name unique to one test run.
    static func name(_ purpose: String) -> String {
        "t-\(purpose)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}

/// A helper process started for one test (the lossy proxy) and killed after it.
final class Helper {
    let process = Process()
    let port: Int

    init(_ script: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(script)").path] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            throw TestBed.Missing(message: "\(script) did not start: \(text)")
        }
        self.port = port
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
    }
}
