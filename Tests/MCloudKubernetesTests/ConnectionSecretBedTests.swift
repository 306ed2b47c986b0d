import Foundation
import MCloudCore
import MCloudDatabaseEngines
import MCloudEngine
import MCloudHTTP
@testable import MCloudKubernetes
import MCloudKubernetesProvider
import MCloudProvider
import MCloudSecrets
import MCloudState
import Testing

/// A connection Secret applied by mcloud on the real kube-apiserver (docs/connectivity.md, "Secrets of a
/// connection"): the desired resource holds the edge and no value; the provider derives the values from the
/// operator's age identity as it applies, the cluster holds them, and the state holds none. A value changed in the
/// cluster is drift the next plan restores; without the identity nothing is written.
@Suite(.serialized) struct ConnectionSecretBedTests {
    let application = "secret-\(UUID().uuidString.prefix(8).lowercased())"
    var namespace: String { "\(application)-eu" }
    let identity = try? AgeIdentity(secretKey: [UInt8](repeating: 5, count: 32))

    var edge: ClientAccess.Edge {
        ClientAccess.Edge(
            application: application, cell: "payments-db@eu", service: "payments-api@eu", engine: .postgresql, host: "payments-db.\(namespace).svc",
            port: 5432, user: "payments_api_eu", database: "payments_api_eu", authorityPath: "/etc/mcloud/tls/payments-db/ca.crt"
        )
    }

    @Test func theClusterGetsTheDerivedValuesAndTheStateOnlyTheirMarkers() async throws {
        let bed = try TestBed.load()
        let client = try bed.client("admin-cert")
        let folder = NSTemporaryDirectory() + "mcloud-\(application)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let identity = try #require(identity)
        try Data("\(identity.encoded)\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/age.key"))
        let catalog = Clusters(client: client, resolver: .system, environment: ["MCLOUD_AGE_KEY_FILE": "\(folder)/age.key"])
        let backend = FileStateBackend(path: "\(folder)/state.json")
        _ = try backend.lock(operation: "apply")
        let desired = resources()
        let expected = try ClientAccess(root: SecretRoot(identity: identity), edge: edge)

        try await apply(try await plan(desired, backend, catalog), backend, catalog)
        let reference = ObjectReference(apiVersion: "v1", kind: "Secret", namespace: namespace, name: "payments-db-payments-api")
        let live = try #require(try await client.get(reference))
        #expect(Self.decoded(live, "password") == expected.password.value)
        #expect(Self.decoded(live, "uri") == expected.uri)
        #expect(Self.decoded(live, ClientAccess.authorityKey) == expected.authorityPEM)
        #expect(Self.decoded(live, "host") == "payments-db.\(namespace).svc" && Self.decoded(live, "port") == "5432")
        let state = try String(contentsOfFile: "\(folder)/state.json", encoding: .utf8)
        #expect(!state.contains(expected.password.value) && !state.contains(Data(expected.password.value.utf8).base64EncodedString()))
        #expect(!state.contains(Data(expected.uri.utf8).base64EncodedString()))
        #expect(state.contains(SecretRedaction.markerText))
        let settled = try await plan(desired, backend, catalog)
        #expect(settled.changes.allSatisfy { $0.action == .noOp && $0.warnings.isEmpty }, "\(settled.changes.map { "\($0.address): \($0.reason)" })")

        // Behind mcloud's back: the password replaced.
        let patch = #"{"data":{"password":"\#(Data("guessed".utf8).base64EncodedString())"}}"#
        let patched = try await client.send(
            .PATCH, "/api/v1/namespaces/\(namespace)/secrets/payments-db-payments-api", body: Array(patch.utf8),
            contentType: "application/merge-patch+json", operation: "change the Secret"
        )
        #expect(patched.status == 200)
        let drifted = try await plan(desired, backend, catalog)
        let change = try #require(drifted.changes.first { $0.type == .secret })
        #expect(change.action == .update && change.drift == ["data.password changed outside mcloud"], "\(change.reason) \(change.drift)")
        #expect(!drifted.changes.map { "\($0.before ?? .null)" }.joined().contains("guessed"))
        try await apply(drifted, backend, catalog)
        #expect(Self.decoded(try #require(try await client.get(reference)), "password") == expected.password.value)
        #expect(try await plan(desired, backend, catalog).changes.allSatisfy { $0.action == .noOp })
    }

    @Test func withoutTheIdentityNoSecretIsWritten() async throws {
        let bed = try TestBed.load()
        let client = try bed.client("admin-cert")
        let provider = KubernetesResourceProvider(cloud: "lab-b", environment: ["MCLOUD_AGE_KEY_FILE": "/nonexistent/age.key"]) { () throws(ProviderError) in client }
        _ = try await provider.create(resources()[0])
        let secret = resources()[1]
        await #expect {
            _ = try await provider.create(secret)
        } throws: { error in
            let error = error as? ProviderError
            return error?.kind == .unavailable
                && error?.message == "the Secret \(namespace)/payments-db-payments-api is derived from the operator's age identity, and no age key file at /nonexistent/age.key (set MCLOUD_AGE_KEY_FILE or SOPS_AGE_KEY_FILE, or create it with age-keygen)"
        }
        #expect(try await client.get(ObjectReference(apiVersion: "v1", kind: "Secret", namespace: namespace, name: "payments-db-payments-api")) == nil)
    }

    static func decoded(_ secret: JSONValue, _ key: String) -> String? {
        secret["data"]?[key]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    func plan(_ desired: [DesiredResource], _ backend: FileStateBackend, _ catalog: Clusters) async throws -> DeploymentPlan {
        let request = PlanMaker.Request(operation: .apply, application: application, desired: desired, state: try backend.read(), refresh: true, inputDigest: "sha256:0")
        return try await PlanMaker.plan(request, clouds: Clusters.clouds, catalog: catalog)
    }

    func apply(_ plan: DeploymentPlan, _ backend: FileStateBackend, _ catalog: Clusters) async throws {
        let providers = try ProviderSet(needs: plan.changes.map { ($0.address, $0.provider, $0.cloud) }, clouds: Clusters.clouds, catalog: catalog)
        let recorder = StateRecorder(state: try backend.read() ?? State(), backend: backend)
        let outcome = try await Applier(parallelism: 4, tick: 60) { _ in }.apply(plan, providers: providers, recorder: recorder)
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
    }

    /// The namespace and the Secret as `DesiredResources` gives them for one edge.
    func resources() -> [DesiredResource] {
        let labels: JSONValue = .object([(ResourceLabels.managedBy, .string(ResourceLabels.manager)), (ResourceLabels.partOf, .string(application))])
        let namespaceAddress = ResourceAddress.kubernetes(cloud: "lab-b", apiVersion: "v1", kind: .namespace, namespace: "", name: namespace)
        let namespaceBody: JSONValue = .object([
            ("apiVersion", .string("v1")), ("kind", .string("Namespace")), ("metadata", .object([("name", .string(namespace)), ("labels", labels)])),
        ])
        let secretBody: JSONValue = .object([
            ("apiVersion", .string("v1")), ("kind", .string("Secret")),
            ("metadata", .object([
                ("name", .string("payments-db-payments-api")), ("namespace", .string(namespace)), ("labels", labels),
                ("annotations", .object([(ClientAccess.Edge.annotation, .string(edge.annotationValue))])),
            ])),
            ("type", .string("Opaque")), ("data", .object(ClientAccess.dataKeys(edge).map { ($0, SecretRedaction.marker) })),
        ])
        return [
            DesiredResource(address: namespaceAddress, provider: .kubernetes, cloud: "lab-b", type: .namespace, body: namespaceBody, dependencies: []),
            DesiredResource(
                address: .kubernetes(cloud: "lab-b", apiVersion: "v1", kind: .secret, namespace: namespace, name: "payments-db-payments-api"),
                provider: .kubernetes, cloud: "lab-b", type: .secret, body: secretBody, dependencies: [namespaceAddress]
            ),
        ]
    }
}
