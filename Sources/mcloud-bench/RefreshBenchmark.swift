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
        do {
            let bed = try BenchNamespaces(arguments, objects: "--objects", default: 1_000, namespaces: 4)
            var desired: [DesiredResource] = []
            for number in 0..<bed.objects {
                let namespace = bed.namespace(number)
                let body = try JSONParser.parse(#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"object-\#(number)","namespace":"\#(namespace)","labels":\#(bed.labels)},"data":{"index":"\#(number)"}}"#)
                desired.append(DesiredResource(
                    address: "kubernetes.bench.v1.ConfigMap.\(namespace).object-\(number)", provider: "kubernetes", cloud: "bench",
                    type: "ConfigMap", body: body, dependencies: []
                ))
            }
            try await bed.make(desired.map(\.body))
            let client = bed.client
            let provider = KubernetesResourceProvider(cloud: "bench") { () throws(ProviderError) -> KubernetesClient in client }
            let start = DispatchTime.now().uptimeNanoseconds
            let observed = try await provider.refresh(application: bed.application, desired: desired, recorded: [])
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            try await bed.delete()
            var table = Table(header: ["objects", "namespaces", "found", "seconds", "objects/s"])
            table.rows.append([
                String(bed.objects), String(bed.count), String(observed.count), String(format: "%.2f", seconds),
                String(format: "%.0f", Double(observed.count) / seconds),
            ])
            print(table.text)
        } catch {
            print("refresh: \(error)")
            exit(1)
        }
    }
}
