import MCloudCore
import MCloudHTTP
@testable import MCloudKubernetes
import Testing
import Foundation

/// Response decoding against bodies recorded from a real kube-apiserver (../shared/testbeds/kubernetes.md).
@Suite struct DecodingTests {
    @Test func aConflictNamesTheFieldsAndTheirManagers() {
        let body = #"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Apply failed with 1 conflict: conflict with \"other-tool\": .spec.replicas","reason":"Conflict","details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \"other-tool\"","field":".spec.replicas"}]},"code":409}"#
        let status = APIStatus.decode(operation: "apply Deployment web/web", response: HTTPResponse(status: 409, body: Array(body.utf8)))
        #expect(status.reason == "Conflict")
        #expect(status.conflicts == [APIStatus.Conflict(field: ".spec.replicas", manager: "other-tool")])
        #expect(status.description == #"apply Deployment web/web: 409 Conflict: Apply failed with 1 conflict: conflict with "other-tool": .spec.replicas (.spec.replicas is managed by other-tool; apply with --force-conflicts to take them over)"#)
    }

    @Test func anInvalidObjectListsItsCauses() {
        let body = #"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0","reason":"Invalid","details":{"name":"web","group":"apps","kind":"Deployment","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"}]},"code":422}"#
        let status = APIStatus.decode(operation: "apply Deployment web/web", response: HTTPResponse(status: 422, body: Array(body.utf8)))
        #expect(status.causes.map(\.field) == ["spec.replicas"])
        #expect(status.description.hasSuffix("(spec.replicas: Invalid value: -1: must be greater than or equal to 0)"))
    }

    @Test func aBodyThatIsNoStatusKeepsTheHTTPCode() {
        let status = APIStatus.decode(operation: "get /version", response: HTTPResponse(status: 502, body: Array("<html>bad gateway</html>".utf8)))
        #expect(status.description == "get /version: 502: <html>bad gateway</html>")
    }

    @Test(arguments: ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"])
    func execCredentialsOfBothVersionsDecode(_ version: String) throws {
        let output = #"{"kind":"ExecCredential","apiVersion":"\#(version)","spec":{},"status":{"token":"t0k3n","expirationTimestamp":"2030-01-02T03:04:05Z"}}"#
        let credential = try ExecCredentialPlugin.decode(Array(output.utf8), expectedVersion: version, command: "helper")
        #expect(credential.token == "t0k3n")
        #expect(credential.expiration?.timeIntervalSince1970 == 1_893_553_445)
    }

    @Test(arguments: [
        ("not json", "credentials: exec plugin helper did not print an ExecCredential: invalid JSON at byte 1: expected null"),
        (#"{"kind":"Other","apiVersion":"client.authentication.k8s.io/v1"}"#, "credentials: exec plugin helper printed kind Other, not ExecCredential"),
        (#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"x"}}"#, "credentials: exec plugin helper answered with apiVersion client.authentication.k8s.io/v1beta1, but the kubeconfig asked for client.authentication.k8s.io/v1"),
        (#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{}}"#, "credentials: exec plugin helper gave neither a token nor a client certificate and key"),
        (#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"x","expirationTimestamp":"tomorrow"}}"#, "credentials: exec plugin helper gave an expirationTimestamp that is not RFC 3339: tomorrow"),
    ])
    func badPluginOutputIsAClearError(_ output: String, _ message: String) {
        #expect {
            _ = try ExecCredentialPlugin.decode(Array(output.utf8), expectedVersion: "client.authentication.k8s.io/v1", command: "helper")
        } throws: { error in
            (error as? KubernetesError)?.description == message
        }
    }

    @Test func resourcePathsFollowScopeAndGroup() {
        let deployments = ResourceInfo(apiVersion: "apps/v1", kind: "Deployment", resource: "deployments", namespaced: true)
        #expect(deployments.collectionPath(namespace: "web") == "/apis/apps/v1/namespaces/web/deployments")
        #expect(deployments.collectionPath(namespace: nil) == "/apis/apps/v1/deployments")
        let namespaces = ResourceInfo(apiVersion: "v1", kind: "Namespace", resource: "namespaces", namespaced: false)
        #expect(namespaces.collectionPath(namespace: "ignored") == "/api/v1/namespaces")
        #expect(KubernetesClient.escape("a=b,c in (d)") == "a%3Db%2Cc%20in%20%28d%29")
    }
}
