import Foundation
import MCloudCore
import MCloudEngine
import MCloudHTTP
@testable import MCloudKubernetes
import MCloudKubernetesProvider
import MCloudProvider
import MCloudState
import Testing

/// A service reached through its Ingress in another cluster, on the real kube-apiserver: once the ingress
/// controller writes the load balancers' addresses into the Ingress's status, the next plan and apply put them in
/// the dependent cluster's EndpointSlice and egress NetworkPolicy (docs/connectivity.md, Names). The two clusters
/// are two namespaces of the bed's one API server, each its own cloud.
@Suite(.serialized) struct IngressAddressBedTests {
    let application = "ingress-\(UUID().uuidString.prefix(8).lowercased())"
    var serving: String { "\(application)-a" }
    var using: String { "\(application)-b" }

    @Test func aSliceAndEgressPolicyFollowingAnIngressHoldItsLoadBalancersAddresses() async throws {
        let bed = try TestBed.load()
        let client = try bed.client("admin-cert")
        let catalog = Clusters(client: client, resolver: HostResolver { host in host == "lb.example" ? ["203.0.113.41"] : [] })
        let backend = FileStateBackend(path: NSTemporaryDirectory() + "mcloud-\(application).json")
        _ = try backend.lock(operation: "apply")
        let desired = resources()
        let ingress = desired[1].address

        let first = try await apply(try await plan(desired, backend, catalog), backend, catalog)
        #expect(first.changes.allSatisfy { $0.warnings.isEmpty })
        // No load balancer has taken the Ingress yet: the policy stays open, and the plan says so.
        let waiting = try await plan(desired, backend, catalog)
        let policy = desired[4].address
        #expect(waiting.changes.first { $0.address == policy }?.warnings == [
            "egress stays open to any address on port 80: \(ingress) reports no IPv4 address to narrow it to",
        ])

        let status = #"{"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.40"},{"hostname":"lb.example"}]}}}"#
        let written = try await client.send(
            .PATCH, "/apis/networking.k8s.io/v1/namespaces/\(serving)/ingresses/web/status", body: Array(status.utf8),
            contentType: "application/merge-patch+json", operation: "write the Ingress's status"
        )
        #expect(written.status == 200)
        let filled = try await plan(desired, backend, catalog)
        #expect(filled.changes.filter { $0.action != .noOp }.map(\.address) == [desired[3].address, policy].sorted())
        #expect(filled.changes.allSatisfy { $0.warnings.isEmpty })
        _ = try await apply(filled, backend, catalog)

        let slice = try #require(try await client.get(ObjectReference(apiVersion: "discovery.k8s.io/v1beta1", kind: "EndpointSlice", namespace: using, name: "web")))
        #expect(ResourceBody(slice).targetAddresses == ["203.0.113.40", "203.0.113.41"])
        let live = try #require(try await client.get(ObjectReference(apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", namespace: using, name: "allow-app-to-web")))
        #expect(live.value(at: ["spec", "egress"])?.arrayItems.first?["to"]?.arrayItems.compactMap { $0.value(at: ["ipBlock", "cidr"])?.stringValue }
            == ["203.0.113.40/32", "203.0.113.41/32"])
        let settled = try await plan(desired, backend, catalog).changes.filter { $0.action != .noOp }
        #expect(settled.isEmpty, "\(settled.map { "\($0.address): \($0.reason)" })")
    }

    func plan(_ desired: [DesiredResource], _ backend: FileStateBackend, _ catalog: Clusters) async throws -> DeploymentPlan {
        let request = PlanMaker.Request(operation: .apply, application: application, desired: desired, state: try backend.read(), refresh: true, inputDigest: "sha256:0")
        return try await PlanMaker.plan(request, clouds: Clusters.clouds, catalog: catalog)
    }

    func apply(_ plan: DeploymentPlan, _ backend: FileStateBackend, _ catalog: Clusters) async throws -> DeploymentPlan {
        let providers = try ProviderSet(needs: plan.changes.map { ($0.address, $0.provider, $0.cloud) }, clouds: Clusters.clouds, catalog: catalog)
        let recorder = StateRecorder(state: try backend.read() ?? State(), backend: backend)
        let outcome = try await Applier(parallelism: 4, tick: 60) { _ in }.apply(plan, providers: providers, recorder: recorder)
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        return plan
    }

    /// As rendering writes them: the service's Ingress in cluster `lab-a`; in `lab-b` the dependent's slice (empty)
    /// and egress policy (open on port 80) naming the Ingress.
    func resources() -> [DesiredResource] {
        let ingressAddress = ResourceAddress("kubernetes.lab-a.Ingress.\(serving).web")
        let follows: JSONValue = .object([(ResourceBody.endpointSourcesAnnotation, .string(ingressAddress.rawValue))])
        let backend: JSONValue = .object([("service", .object([("name", .string("web")), ("port", .object([("number", .int(8080))]))]))])
        let path: JSONValue = .object([("path", .string("/")), ("pathType", .string("Prefix")), ("backend", backend)])
        let port: JSONValue = .object([("protocol", .string("TCP")), ("port", .int(80))])
        return [
            resource("lab-a", "v1", .namespace, serving, nil),
            resource("lab-a", "networking.k8s.io/v1", .ingress, "web", serving, content: [
                ("spec", .object([("rules", .array([.object([("http", .object([("paths", .array([path]))]))])]))])),
            ]),
            // Namespaces are not namespaced: on the one API server, a cluster listing them would see the other's.
            resource("lab-a", "v1", .namespace, using, nil),
            resource("lab-b", "discovery.k8s.io/v1", .endpointSlice, "web", using, annotations: follows, content: [
                ("addressType", .string("IPv4")), ("endpoints", .array([])), ("ports", .array([port])),
            ], after: ingressAddress),
            resource("lab-b", "networking.k8s.io/v1", .networkPolicy, "allow-app-to-web", using, annotations: follows, content: [
                ("spec", .object([
                    ("podSelector", .object([])), ("policyTypes", .array([.string("Egress")])), ("egress", .array([.object([("ports", .array([port]))])])),
                ])),
            ], after: ingressAddress),
        ]
    }

    func resource(
        _ cloud: String, _ apiVersion: String, _ kind: ResourceKind, _ name: String, _ namespace: String?, annotations: JSONValue? = nil,
        content: [(String, JSONValue)] = [], after source: ResourceAddress? = nil
    ) -> DesiredResource {
        var metadata: [(String, JSONValue)] = [("name", .string(name))]
        if let namespace { metadata.append(("namespace", .string(namespace))) }
        metadata.append(("labels", .object([
            (ResourceLabels.managedBy, .string(ResourceLabels.manager)), (ResourceLabels.partOf, .string(application)),
        ])))
        if let annotations { metadata.append(("annotations", annotations)) }
        let body: JSONValue = .object([("apiVersion", .string(apiVersion)), ("kind", .string(kind.rawValue)), ("metadata", .object(metadata))] + content)
        let address = ResourceAddress("kubernetes.\(cloud).\(kind.rawValue).\(namespace.map { "\($0)." } ?? "")\(name)")
        let namespaceAddress = namespace.map { ResourceAddress("kubernetes.lab-a.Namespace.\($0)") }
        return DesiredResource(
            address: address, provider: "kubernetes", cloud: cloud, type: kind, body: body, dependencies: [namespaceAddress, source].compactMap { $0 }
        )
    }
}

/// Both clouds' clusters on the bed's one API server.
struct Clusters: ProviderCatalog {
    let client: KubernetesClient
    let resolver: HostResolver
    /// Where the providers find the operator's age identity.
    var environment: [String: String] = [:]

    static let clouds = Dictionary(uniqueKeysWithValues: ["lab-a", "lab-b"].map { name in
        (name, Cloud(
            name: name, vendor: "lab", api: .openstack, jurisdiction: ["EU"], region: "lab-1", zones: [], offers: .init(kubernetes: true),
            capacity: .init(vcpu: 8, memoryGiB: 32, storageGiB: 100), pricing: .init(currency: "EUR"), latencyMs: [:], endpoints: .init(),
            location: SourceLocation(file: "\(name).yaml", line: 1, column: 1)
        ))
    })

    func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        let client = client
        return KubernetesResourceProvider(cloud: cloud.name, resolver: resolver, environment: environment) { () throws(ProviderError) in client }
    }
}
