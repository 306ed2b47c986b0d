import Foundation
import MCloudCore
import MCloudKubernetes
import MCloudKubernetesProvider
import MCloudProvider

/// The Kubernetes provider's refresh of many objects from a real API server.
enum RefreshBenchmark {
    /// Creates N labelled objects on the API server, then times the provider's refresh of them (one list per kind
    /// and namespace, not one read per object).
    static func run(_ arguments: [String]) async {
        var objects = 1_000
        var namespaces = 4
        var kubeconfig = "\(ProcessInfo.processInfo.environment["MCLOUD_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/kubernetes")/kubeconfig"
        var index = 0
        while index + 1 < arguments.count {
            switch arguments[index] {
            case "--objects": objects = Int(arguments[index + 1]) ?? objects
            case "--namespaces": namespaces = max(1, Int(arguments[index + 1]) ?? namespaces)
            case "--kubeconfig": kubeconfig = arguments[index + 1]
            default: break
            }
            index += 2
        }
        do {
            let connection = try KubeconfigLoader.load(environment: ["KUBECONFIG": kubeconfig]).connection(context: "admin-cert")
            let client = KubernetesClient(connection: connection)
            let application = "bench-\(UUID().uuidString.prefix(8).lowercased())"
            let labels = #"{"app.kubernetes.io/managed-by":"mcloud","app.kubernetes.io/part-of":"\#(application)"}"#
            var desired: [DesiredResource] = []
            for number in 0..<namespaces {
                let body = try JSONParser.parse(#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"\#(application)-\#(number)","labels":\#(labels)}}"#)
                _ = try await client.apply(body)
            }
            for number in 0..<objects {
                let namespace = "\(application)-\(number % namespaces)"
                let body = try JSONParser.parse(#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"object-\#(number)","namespace":"\#(namespace)","labels":\#(labels)},"data":{"index":"\#(number)"}}"#)
                desired.append(DesiredResource(
                    address: "kubernetes.bench.v1.ConfigMap.\(namespace).object-\(number)", provider: "kubernetes", cloud: "bench",
                    type: "ConfigMap", body: body, dependencies: []
                ))
            }
            let bodies = desired.map(\.body)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (number, body) in bodies.enumerated() {
                    if number >= 16 { try await group.next() }
                    group.addTask { _ = try await client.apply(body) }
                }
                try await group.waitForAll()
            }
            let provider = KubernetesResourceProvider(cloud: "bench") { () throws(ProviderError) -> KubernetesClient in client }
            let start = DispatchTime.now().uptimeNanoseconds
            let observed = try await provider.refresh(application: application, desired: desired, recorded: [])
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            for number in 0..<namespaces {
                try await client.delete(ObjectReference(apiVersion: "v1", kind: "Namespace", name: "\(application)-\(number)"))
            }
            var table = Table(header: ["objects", "namespaces", "found", "seconds", "objects/s"])
            table.rows.append([
                String(objects), String(namespaces), String(observed.count), String(format: "%.2f", seconds),
                String(format: "%.0f", Double(observed.count) / seconds),
            ])
            print(table.text)
        } catch {
            print("refresh: \(error)")
            exit(1)
        }
    }
}
