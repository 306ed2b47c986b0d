import Foundation
import MCloudCore
import MCloudKubernetes

/// Server-side applies N ConfigMaps to a real API server with bounded concurrency and prints objects per second
/// and the client's peak memory. Needs a kubeconfig: by default the test bed's (scripts/testbed/kubernetes.sh).
enum KubeApplyBenchmark {
    static func run(_ arguments: [String]) async {
        var objects = 1_000
        var concurrency = 16
        var kubeconfig = "\(ProcessInfo.processInfo.environment["MCLOUD_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/kubernetes")/kubeconfig"
        var context = "admin-cert"
        var index = 0
        while index + 1 < arguments.count {
            switch arguments[index] {
            case "--objects": objects = Int(arguments[index + 1]) ?? objects
            case "--concurrency": concurrency = max(1, Int(arguments[index + 1]) ?? concurrency)
            case "--kubeconfig": kubeconfig = arguments[index + 1]
            case "--context": context = arguments[index + 1]
            default: break
            }
            index += 2
        }
        do {
            let connection = try KubeconfigLoader.load(environment: ["KUBECONFIG": kubeconfig]).connection(context: context)
            let client = KubernetesClient(connection: connection)
            let namespace = "mcloud-bench-\(UUID().uuidString.prefix(8).lowercased())"
            _ = try await client.apply(try JSONParser.parse(#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"\#(namespace)"}}"#))
            let start = DispatchTime.now().uptimeNanoseconds
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<objects {
                    if number >= concurrency { try await group.next() }
                    group.addTask {
                        let object = try JSONParser.parse(#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"object-\#(number)","namespace":"\#(namespace)","labels":{"app.kubernetes.io/managed-by":"mcloud"}},"data":{"index":"\#(number)"}}"#)
                        _ = try await client.apply(object)
                    }
                }
                try await group.waitForAll()
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            try await client.delete(ObjectReference(apiVersion: "v1", kind: "Namespace", name: namespace))
            var table = Table(header: ["objects", "concurrency", "seconds", "objects/s", "peak MiB"])
            table.rows.append([
                String(objects), String(concurrency), String(format: "%.2f", seconds), String(format: "%.0f", Double(objects) / seconds),
                String(format: "%.0f", ResourceUsage.peakMiB()),
            ])
            print(table.text)
        } catch {
            print("kube-apply: \(error)")
            exit(1)
        }
    }
}
