import Foundation
import MCloudCore
import MCloudEngine
import MCloudKubernetes
import MCloudKubernetesProvider
import MCloudManifest
import MCloudPlanner
import MCloudProvider
import MCloudRender
import MCloudState
import MCloudViews

/// The apply engine's two hot paths: a plan with `--no-refresh` over a large state, and a refresh of many objects
/// from a real API server.
enum EngineBenchmark {
    /// Kubernetes providers that are never asked to connect: a plan without refresh needs none.
    struct OfflineCatalog: ProviderCatalog {
        func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
            KubernetesResourceProvider(cloud: cloud.name) { () throws(ProviderError) -> KubernetesClient in
                throw ProviderError(.unavailable, "the benchmark plans without refresh")
            }
        }
    }

    /// `mcloud plan --no-refresh` without the placement: read the state, diff every resource, build the JSON document.
    static func plan(resources: Int) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let set = ManifestLoader.load(paths: ["\(root)/Manifests/retail-bank"], providers: "\(root)/Providers")
        guard let model = set.model, case .success(let placement) = Planner.plan(model) else {
            print("engine-plan: the retail-bank example does not plan")
            exit(1)
        }
        let template = DesiredResources.from(Rendering(model: model, placement: Placement(placement))).filter { $0.provider == "kubernetes" }
        var desired: [DesiredResource] = []
        var copy = 0
        while desired.count < resources {
            for resource in template where desired.count < resources {
                var moved = resource
                moved.address = "\(moved.address)-\(copy)"
                desired.append(moved)
            }
            copy += 1
        }
        // The state records every resource; one in a hundred has other replicas, so the plan has updates to show.
        let recorded = desired.enumerated().map { index, resource in
            var attributes = Dictionary(resource.body.objectPairs, uniquingKeysWith: { first, _ in first })
            if index % 100 == 0, resource.type == "Deployment", case .object(var spec)? = attributes["spec"] {
                spec = spec.map { $0.0 == "replicas" ? ("replicas", .int(99)) : $0 }
                attributes["spec"] = .object(spec)
            }
            return ResourceState(
                address: resource.address, provider: resource.provider, cloud: resource.cloud, providerID: "uid-\(index)",
                attributes: attributes, dependencies: resource.dependencies
            )
        }
        let stateBytes = Array(State(lineage: UUID().uuidString.lowercased(), serial: 1, resources: recorded).serialized().utf8)
        let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let start = DispatchTime.now().uptimeNanoseconds
        let semaphore = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var summary = ""
        Task {
            do {
                let readStart = DispatchTime.now().uptimeNanoseconds
                let state = try State.parse(stateBytes, source: "bench")
                let diffStart = DispatchTime.now().uptimeNanoseconds
                let request = PlanMaker.Request(
                    operation: .apply, application: model.application.name, desired: desired, state: state, refresh: false,
                    inputDigest: "sha256:bench"
                )
                let plan = try await PlanMaker.plan(request, clouds: clouds, catalog: OfflineCatalog())
                let documentStart = DispatchTime.now().uptimeNanoseconds
                let bytes = PlanDocument(deployment: plan, placement: nil).json.serialized().utf8.count
                let end = DispatchTime.now().uptimeNanoseconds
                func seconds(_ from: UInt64, _ to: UInt64) -> String { String(format: "%.2f", Double(to - from) / 1e9) }
                summary = "\(plan.count(.update)) updates, \(bytes / 1024) KiB of JSON; read \(seconds(readStart, diffStart)) s, "
                    + "diff \(seconds(diffStart, documentStart)) s, JSON \(seconds(documentStart, end)) s"
            } catch {
                summary = "failed: \(error)"
            }
            semaphore.signal()
        }
        semaphore.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var table = Table(header: ["resources", "state MiB", "seconds", "result", "peak MiB"])
        table.rows.append([
            String(desired.count), String(format: "%.1f", Double(stateBytes.count) / 1_048_576), String(format: "%.2f", seconds), summary,
            String(format: "%.0f", ResourceUsage.peakMiB()),
        ])
        print(table.text)
    }

    /// Creates N labelled objects on the API server, then times the provider's refresh of them (one list per kind
    /// and namespace, not one read per object).
    static func refresh(_ arguments: [String]) async {
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
