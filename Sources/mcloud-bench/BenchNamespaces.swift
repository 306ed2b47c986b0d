import Foundation
import MCloudCore
import MCloudKubernetes

/// A benchmark's objects on the test API server: its options (`--namespaces`, `--kubeconfig`, and one count), a fresh
/// application name, its namespaces made and deleted, and objects applied 16 at a time. For `refresh` and `status`.
struct BenchNamespaces {
    let client: KubernetesClient
    let application: String
    let count: Int
    /// The count option's value (`--objects`, `--cells`).
    let objects: Int

    /// Reads the options and connects; the namespaces are made by `make`.
    init(_ arguments: [String], objects option: String, default objects: Int, namespaces: Int) throws {
        var objects = objects, namespaces = namespaces
        var kubeconfig = "\(ProcessInfo.processInfo.environment["MCLOUD_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/kubernetes")/kubeconfig"
        var index = 0
        while index + 1 < arguments.count {
            switch arguments[index] {
            case option: objects = max(1, Int(arguments[index + 1]) ?? objects)
            case "--namespaces": namespaces = max(1, Int(arguments[index + 1]) ?? namespaces)
            case "--kubeconfig": kubeconfig = arguments[index + 1]
            default: break
            }
            index += 2
        }
        let connection = try KubeconfigLoader.load(environment: ["KUBECONFIG": kubeconfig]).connection(context: "admin-cert")
        client = KubernetesClient(connection: connection)
        application = "bench-\(UUID().uuidString.prefix(8).lowercased())"
        count = namespaces
        self.objects = objects
    }

    /// mcloud's labels for this application, as a JSON object.
    var labels: String { #"{"app.kubernetes.io/managed-by":"mcloud","app.kubernetes.io/part-of":"\#(application)"}"# }

    /// The namespace of the `number`-th object: round robin.
    func namespace(_ number: Int) -> String { "\(application)-\(number % count)" }

    /// Makes the namespaces, then applies `bodies` 16 at a time.
    func make(_ bodies: [JSONValue]) async throws {
        for number in 0..<count {
            _ = try await client.apply(try JSONParser.parse(#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"\#(application)-\#(number)","labels":\#(labels)}}"#))
        }
        let client = client
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (number, body) in bodies.enumerated() {
                if number >= 16 { try await group.next() }
                group.addTask { _ = try await client.apply(body) }
            }
            try await group.waitForAll()
        }
    }

    func delete() async throws {
        for number in 0..<count {
            try await client.delete(ObjectReference(apiVersion: "v1", kind: "Namespace", name: "\(application)-\(number)"))
        }
    }
}
