import Foundation
import MCloudCore
import MCloudKubernetes
import MCloudKubernetesProvider
import MCloudProvider
import MCloudViews

/// `mcloud status`'s reading of many cells from a real API server: what `StatusReader` does per cloud (the provider's
/// refresh of what the state records, one list per kind and namespace) and then the judging, JSON and human view of
/// the document, each timed apart. The CLI's wiring (manifests, state file, timeouts) is left out: it does not grow with the cells.
enum StatusBenchmark {
    static func run(_ arguments: [String]) async {
        do {
            let bed = try BenchNamespaces(arguments, objects: "--cells", default: 1_000, namespaces: 4)
            let application = bed.application
            // One Deployment per cell, labelled as mcloud renders a cell's, recorded as the state records it.
            var recorded: [ResourceState] = []
            for number in 0..<bed.objects {
                let namespace = bed.namespace(number)
                let labels = #"{"app.kubernetes.io/managed-by":"mcloud","app.kubernetes.io/part-of":"\#(application)","mcloud.io/cell":"svc-\#(number).eu","mcloud.io/audience":"eu"}"#
                let body = try JSONParser.parse(#"""
                    {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"svc-\#(number)","namespace":"\#(namespace)","labels":\#(labels)},
                     "spec":{"replicas":1,"selector":{"matchLabels":{"app":"svc-\#(number)"}},
                      "template":{"metadata":{"labels":{"app":"svc-\#(number)"}},"spec":{"containers":[{"name":"app","image":"registry.example/svc:1"}]}}}}
                    """#)
                recorded.append(ResourceState(
                    address: "kubernetes.bench.apps/v1.Deployment.\(namespace).svc-\(number)", provider: "kubernetes", cloud: "bench",
                    providerID: "", attributes: Dictionary(body.objectPairs, uniquingKeysWith: { first, _ in first })
                ))
            }
            try await bed.make(recorded.map(\.attributes))
            let client = bed.client
            let provider = KubernetesResourceProvider(cloud: "bench") { () throws(ProviderError) -> KubernetesClient in client }
            let desired = recorded.map { DesiredResource(address: $0.address, provider: $0.provider, cloud: $0.cloud, type: $0.address.kind, body: $0.attributes, dependencies: []) }
            let start = DispatchTime.now().uptimeNanoseconds
            let observed = try await provider.refresh(application: application, desired: desired, recorded: recorded)
            let read = DispatchTime.now().uptimeNanoseconds
            let document = StatusDocument(application: application, time: Int(Date().timeIntervalSince1970), resources: recorded, readings: ["bench": .read(observed)])
            let judged = DispatchTime.now().uptimeNanoseconds
            let bytes = document.json.serialized(pretty: false).utf8.count + StatusView.render(document).utf8.count
            let drawn = DispatchTime.now().uptimeNanoseconds
            try await bed.delete()
            var table = Table(header: ["cells", "namespaces", "found", "read s", "judge s", "views s", "total s", "output KiB", "health"])
            let seconds = { (from: UInt64, to: UInt64) in String(format: "%.2f", Double(to - from) / 1e9) }
            table.rows.append([
                String(bed.objects), String(bed.count), String(observed.count), seconds(start, read), seconds(read, judged), seconds(judged, drawn),
                seconds(start, drawn), String(bytes / 1024), document.verdict.health.rawValue,
            ])
            print(table.text)
        } catch {
            print("status: \(error)")
            exit(1)
        }
    }
}
