import Foundation
import MCloudHTTP
import MCloudKubernetes
import Testing

/// The real kube-apiserver that `scripts/testbed/kubernetes.sh start` runs on loopback, described by its env file.
/// Tests that need it fail, never skip, when it is not running.
struct TestBed {
    let values: [String: String]

    static let directory = ProcessInfo.processInfo.environment["MCLOUD_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/kubernetes"

    static func load() throws -> TestBed {
        guard let data = FileManager.default.contents(atPath: "\(directory)/env") else {
            throw TestBedMissing(message: "no test API server: run scripts/testbed/kubernetes.sh start (looked for \(directory)/env)")
        }
        var values: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return TestBed(values: values)
    }

    struct TestBedMissing: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    subscript(key: String) -> String { values[key] ?? "" }

    var kubeconfig: String { self["MCLOUD_TEST_KUBECONFIG"] }
    var server: String { self["MCLOUD_TEST_KUBE_SERVER"] }

    /// A client for one of the bed's kubeconfig contexts, with a short retry budget so failures come quickly.
    func client(_ context: String, retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.05, maxDelay: 0.2, budget: 2)) throws -> KubernetesClient {
        let config = try KubeconfigLoader.load(environment: ["KUBECONFIG": kubeconfig])
        return KubernetesClient(connection: try config.connection(context: context), environment: [:], retryPolicy: retry)
    }

    /// A namespace name unique to one test run, so tests never see each other's objects.
    static func namespace(_ purpose: String) -> String {
        "t-\(purpose)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}

/// A helper process started for one test (the fault proxy) and killed after it.
final class Helper {
    let process = Process()
    let port: Int

    init(_ script: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(script)").path] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            throw TestBed.TestBedMissing(message: "\(script) did not start: \(text)")
        }
        self.port = port
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
    }
}
