import Foundation
import MCloudCLI
import MCloudCore
import MCloudKubernetes
import MCloudTestSupport
import Testing

/// A services-only application deployed to the real test API server (scripts/testbed/kubernetes.sh), in a folder
/// of its own with its own state. Each workspace's application has a unique name, so its namespace is new: a deleted
/// namespace stays Terminating on a bed without controllers.
struct EngineWorkspace {
    let folder: String
    let application: String
    let kubeconfig: String

    static func kubernetesBed() throws -> TestBedEnvironment {
        try TestBedEnvironment.load(
            directory: ProcessInfo.processInfo.environment["MCLOUD_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/kubernetes",
            start: "scripts/testbed/kubernetes.sh start"
        )
    }

    /// `services` extra services make a bigger application (for the crash test).
    init(services: Int = 0, fixture: String = "engine") throws {
        kubeconfig = try Self.kubernetesBed()["MCLOUD_TEST_KUBECONFIG"]
        application = "e2e-\(UUID().uuidString.prefix(8).lowercased())"
        folder = NSTemporaryDirectory() + "mcloud-\(application)"
        let fixture = "\(fixtures)/\(fixture)"
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder + "/app", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: folder + "/providers", withIntermediateDirectories: true)
        var app = try String(contentsOfFile: "\(fixture)/app/application.yaml", encoding: .utf8).replacingOccurrences(of: "e2e-shop", with: application)
        for index in 0..<services {
            app += """
                ---
                apiVersion: mcloud/v1
                kind: Service
                metadata: { name: worker-\(index) }
                spec:
                  image: registry.example/worker:1.0.\(index)
                  replicas: 1
                  resources: { cpu: "50m", memory: "64Mi" }
                  ports:
                    - { name: http, port: 8080, protocol: TCP }

                """
        }
        try app.write(toFile: "\(folder)/app/application.yaml", atomically: true, encoding: .utf8)
        let cloud = try String(contentsOfFile: "\(fixture)/providers/lab.yaml", encoding: .utf8).replacingOccurrences(of: "KUBECONFIG_PATH", with: kubeconfig)
        try cloud.write(toFile: "\(folder)/providers/lab.yaml", atomically: true, encoding: .utf8)
    }

    var statePath: String { "\(folder)/state.json" }
    var namespace: String { "\(application)-eu" }

    var common: [String] { ["-f", "\(folder)/app", "--providers", "\(folder)/providers", "--state", "file://\(statePath)"] }

    func run(_ command: String, _ arguments: [String] = [], input: [String] = [], environment: [String: String] = [:]) async -> Run {
        let options = command == "state" ? ["--state", "file://\(statePath)"] : common
        // The bed's kubeconfig, which the fixture catalogs name, is the operator's to allow (docs/security.md, H3).
        let base = ["MCLOUD_ALLOWED_KUBECONFIGS": kubeconfig, "NO_COLOR": "1"]
        return await mcloudRun([command] + options + arguments, environment: base.merging(environment) { $1 }, input: input)
    }

    /// Changes the catalog's text (to fill in a test server's address).
    func editCatalog(_ from: String, _ to: String) throws {
        let path = "\(folder)/providers/lab.yaml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: from, with: to).write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Changes the application's manifest text.
    func edit(_ from: String, _ to: String) throws {
        let path = "\(folder)/app/application.yaml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: from, with: to).write(toFile: path, atomically: true, encoding: .utf8)
    }

    func client() throws -> KubernetesClient {
        let config = try KubeconfigLoader.load(environment: ["KUBECONFIG": kubeconfig])
        return KubernetesClient(connection: try config.connection(context: "admin-cert"), environment: [:])
    }

    /// The names of the objects of a kind carrying this application's labels, as the API server lists them.
    func listed(_ apiVersion: String, _ kind: String) async throws -> [String] {
        try await client().list(
            apiVersion: apiVersion, kind: kind, namespace: namespace,
            labelSelector: "app.kubernetes.io/managed-by=mcloud,app.kubernetes.io/part-of=\(application)"
        ).compactMap { $0.value(at: ["metadata", "name"])?.stringValue }.sorted()
    }
}
