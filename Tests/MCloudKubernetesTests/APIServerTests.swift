import Foundation
import MCloudCore
import MCloudHTTP
@testable import MCloudKubernetes
import MCloudTestSupport
import Testing

/// Against the real kube-apiserver 1.20 of the test bed (scripts/testbed/kubernetes.sh).
@Suite(.serialized) struct APIServerTests {
    static func object(_ json: String) throws -> JSONValue { try JSONParser.parse(json) }

    static func namespace(_ name: String) throws -> JSONValue {
        try object(#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"\#(name)","labels":{"app.kubernetes.io/managed-by":"mcloud"}}}"#)
    }

    static func configMap(_ namespace: String, _ name: String, partOf: String, data: String = "1") throws -> JSONValue {
        try object(#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"\#(name)","namespace":"\#(namespace)","labels":{"app.kubernetes.io/managed-by":"mcloud","app.kubernetes.io/part-of":"\#(partOf)"}},"data":{"value":"\#(data)"}}"#)
    }

    static func deployment(_ namespace: String, replicas: Int) throws -> JSONValue {
        try object(#"""
            {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"\#(namespace)"},
             "spec":{"replicas":\#(replicas),"selector":{"matchLabels":{"app":"web"}},
                     "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"registry.example/web:1"}]}}}}
            """#)
    }

    static func resourceVersion(_ object: JSONValue) -> String? { object.value(at: ["metadata", "resourceVersion"])?.stringValue }

    @Test func applyCreatesThenChangesNothingWhenReappliedUnchanged() async throws {
        let client = try TestBed.load().client("admin-cert")
        let name = TestBed.namespace("apply")
        let created = try await client.apply(try Self.namespace(name))
        let map = try await client.apply(try Self.configMap(name, "settings", partOf: "bank"))
        let again = try await client.apply(try Self.configMap(name, "settings", partOf: "bank"))
        #expect(created.value(at: ["metadata", "name"])?.stringValue == name)
        #expect(Self.resourceVersion(map) == Self.resourceVersion(again))
        try await client.delete(ObjectReference(apiVersion: "v1", kind: "Namespace", name: name))
    }

    @Test func aChangedSpecGetsANewGeneration() async throws {
        let client = try TestBed.load().client("admin-token")
        let name = TestBed.namespace("generation")
        _ = try await client.apply(try Self.namespace(name))
        let first = try await client.apply(try Self.deployment(name, replicas: 2))
        let second = try await client.apply(try Self.deployment(name, replicas: 3))
        #expect(first.value(at: ["metadata", "generation"])?.intValue == 1)
        #expect(second.value(at: ["metadata", "generation"])?.intValue == 2)
        #expect(second.value(at: ["spec", "replicas"])?.intValue == 3)
        let status = try await client.rolloutStatus(namespace: name, name: "web")
        // The bed runs no controller manager, so no replica ever becomes available.
        #expect(!status.isComplete)
        await #expect {
            _ = try await client.waitForRollout(namespace: name, name: "web", timeout: 1, interval: 0.5)
        } throws: { error in
            (error as? KubernetesError)?.description == "timed out: Deployment \(name)/web: 0 of 3 replicas updated, 0 available, after 1.0 s"
        }
        try await client.delete(ObjectReference(apiVersion: "v1", kind: "Namespace", name: name))
    }

    @Test func aRolloutThatNeverCompletesTimesOutOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let client = try TestBed.load().client("admin-token", clock: clock)
        let name = TestBed.namespace("rollout-clock")
        _ = try await client.apply(try Self.namespace(name))
        _ = try await client.apply(try Self.deployment(name, replicas: 2))
        // The bed runs no controller manager, so the rollout never completes: ten minutes pass on the clock alone.
        await #expect {
            _ = try await client.waitForRollout(namespace: name, name: "web", timeout: 600, interval: 30)
        } throws: { error in
            (error as? KubernetesError)?.description == "timed out: Deployment \(name)/web: 0 of 2 replicas updated, 0 available, after 600.0 s"
        }
        #expect(clock.sleeps == Array(repeating: 30, count: 20))
        #expect(clock.now == 600)
        try await client.delete(ObjectReference(apiVersion: "v1", kind: "Namespace", name: name))
    }

    @Test func anotherManagersFieldIsAConflictUntilForced() async throws {
        let client = try TestBed.load().client("admin-cert")
        let name = TestBed.namespace("conflict")
        _ = try await client.apply(try Self.namespace(name))
        _ = try await client.apply(try Self.deployment(name, replicas: 2))
        // Another tool takes .spec.replicas over, as `kubectl scale --server-side --force-conflicts` would.
        let other = try await client.send(
            .PATCH, "/apis/apps/v1/namespaces/\(name)/deployments/web", query: [("fieldManager", "other-tool"), ("force", "true")],
            body: Array(try Self.deployment(name, replicas: 5).serialized(pretty: false).utf8), contentType: "application/apply-patch+yaml",
            operation: "scale web as other-tool"
        )
        #expect(other.status == 200)
        await #expect {
            _ = try await client.apply(try Self.deployment(name, replicas: 2))
        } throws: { error in
            guard let status = (error as? KubernetesError)?.status else { return false }
            return status.code == 409 && status.conflicts == [APIStatus.Conflict(field: ".spec.replicas", manager: "other-tool")]
        }
        let forced = try await client.apply(try Self.deployment(name, replicas: 2), force: true)
        #expect(forced.value(at: ["spec", "replicas"])?.intValue == 2)
        try await client.delete(ObjectReference(apiVersion: "v1", kind: "Namespace", name: name))
    }

    @Test func pruneDeletesOnlyThisApplicationsObjectsThatAreNoLongerWanted() async throws {
        let client = try TestBed.load().client("admin-cert")
        let name = TestBed.namespace("prune")
        _ = try await client.apply(try Self.namespace(name))
        // The application's name is unique to this run: pruning lists across all namespaces.
        let application = name
        for (map, partOf) in [("kept", application), ("stale", application), ("other-app", "shop"), ("similar", "\(application)-old")] {
            _ = try await client.apply(try Self.configMap(name, map, partOf: partOf))
        }
        let kept = ObjectReference(apiVersion: "v1", kind: "ConfigMap", namespace: name, name: "kept")
        let deleted = try await client.prune(
            kinds: [("v1", "ConfigMap")], selector: ["app.kubernetes.io/managed-by": "mcloud", "app.kubernetes.io/part-of": application], keep: [kept]
        )
        #expect(deleted == [ObjectReference(apiVersion: "v1", kind: "ConfigMap", namespace: name, name: "stale")])
        let left = try await client.list(apiVersion: "v1", kind: "ConfigMap", namespace: name, labelSelector: "app.kubernetes.io/managed-by=mcloud")
        #expect(left.compactMap { $0.value(at: ["metadata", "name"])?.stringValue }.sorted() == ["kept", "other-app", "similar"])
        try await client.delete(ObjectReference(apiVersion: "v1", kind: "Namespace", name: name))
    }

    @Test func deleteThenWaitUntilGone() async throws {
        let client = try TestBed.load().client("admin-cert")
        let name = TestBed.namespace("delete")
        _ = try await client.apply(try Self.namespace(name))
        _ = try await client.apply(try Self.configMap(name, "doomed", partOf: "bank"))
        let reference = ObjectReference(apiVersion: "v1", kind: "ConfigMap", namespace: name, name: "doomed")
        #expect(try await client.delete(reference))
        try await client.waitUntilGone(reference, timeout: 10, interval: 0.2)
        #expect(try await client.get(reference) == nil)
        #expect(try await client.delete(reference) == false)
        try await client.delete(ObjectReference(apiVersion: "v1", kind: "Namespace", name: name))
    }

    @Test func aBadTokenIs401AndAUserWithoutRBACIs403() async throws {
        let bed = try TestBed.load()
        var connection = try KubeconfigLoader.load(environment: ["KUBECONFIG": bed.kubeconfig]).connection(context: "admin-token")
        connection.credentials = .token("not-a-valid-token")
        let stranger = KubernetesClient(connection: connection, environment: [:])
        await #expect {
            _ = try await stranger.list(apiVersion: "v1", kind: "Namespace", labelSelector: "a=b")
        } throws: { error in (error as? KubernetesError)?.status?.code == 401 }
        for context in ["viewer-token", "dev-cert"] {
            let client = try bed.client(context)
            await #expect {
                _ = try await client.list(apiVersion: "v1", kind: "Namespace", labelSelector: "a=b")
            } throws: { error in
                guard let status = (error as? KubernetesError)?.status else { return false }
                return status.code == 403 && status.reason == "Forbidden"
            }
        }
    }

    @Test func anExecPluginsTokenIsUsed() async throws {
        let bed = try TestBed.load()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-exec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("get-token")
        try Data("""
            #!/bin/sh
            echo called >> "\(directory.path)/calls"
            printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"%s","expirationTimestamp":"2099-01-01T00:00:00Z"}}' "$ADMIN_TOKEN"
            """.utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        var connection = try KubeconfigLoader.load(environment: ["KUBECONFIG": bed.kubeconfig]).connection(context: "admin-token")
        connection.credentials = .exec(Kubeconfig.ExecConfig(
            apiVersion: "client.authentication.k8s.io/v1", command: script.path, args: [],
            env: ["ADMIN_TOKEN": bed["MCLOUD_TEST_KUBE_ADMIN_TOKEN"]], installHint: nil
        ))
        let client = KubernetesClient(connection: connection, environment: ["PATH": "/usr/bin:/bin"])
        _ = try await client.list(apiVersion: "v1", kind: "Namespace", labelSelector: "a=b")
        _ = try await client.list(apiVersion: "v1", kind: "ConfigMap", namespace: "default", labelSelector: "a=b")
        let calls = try String(contentsOf: directory.appendingPathComponent("calls"), encoding: .utf8)
        #expect(calls == "called\n")  // cached until it expires
    }

    @Test func anUnreachableServerFailsAfterTheRetryBudget() async throws {
        let connection = ClusterConnection(context: "nowhere", server: "https://127.0.0.1:1", tls: .system, credentials: .token("secret-token"))
        let client = KubernetesClient(connection: connection, environment: [:], retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.02, budget: 1, deadline: BedTiming.requestDeadline))
        await #expect {
            _ = try await client.serverVersion()
        } throws: { error in
            guard case .transport(let operation, .retriesExhausted(let attempts, let last)) = error as? KubernetesError else { return false }
            return operation == "get /version" && attempts == 3 && last.contains("127.0.0.1:1") && !last.contains("secret-token")
        }
    }

    @Test(arguments: [429, 503])
    func throttlingFromAProxyIsRetried(_ status: Int) async throws {
        let bed = try TestBed.load()
        let proxy = try ScriptProcess(fixture("fault_proxy.py"), [bed.server, bed["MCLOUD_TEST_KUBE_CA_FILE"], String(status), "2"])
        let connection = ClusterConnection(
            context: "proxy", server: "http://127.0.0.1:\(proxy.port)", tls: .system, credentials: .token(bed["MCLOUD_TEST_KUBE_ADMIN_TOKEN"])
        )
        let client = KubernetesClient(connection: connection, environment: [:], retryPolicy: RetryPolicy(maxAttempts: 4, baseDelay: 0.01, maxDelay: 0.05, budget: 2, deadline: BedTiming.requestDeadline))
        #expect(try await client.serverVersion() == bed["MCLOUD_TEST_KUBE_VERSION"])
    }

    /// The bed's second kubeconfig names files: certificate-authority, client-certificate, client-key, tokenFile.
    @Test(arguments: ["admin-cert", "admin-token", "insecure"])
    func credentialsFromFilesAndSkippedVerificationWork(_ context: String) async throws {
        let bed = try TestBed.load()
        let config = try KubeconfigLoader.load(environment: ["KUBECONFIG": bed["MCLOUD_TEST_KUBECONFIG_FILES"]])
        let client = KubernetesClient(connection: try config.connection(context: context), environment: [:])
        #expect(try await client.serverVersion() == bed["MCLOUD_TEST_KUBE_VERSION"])
        _ = try await client.list(apiVersion: "v1", kind: "Namespace", labelSelector: "app.kubernetes.io/managed-by=mcloud")
    }
}
