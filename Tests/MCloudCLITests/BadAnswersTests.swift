import Foundation
import MCloudCore
import MCloudHTTP
import MCloudTestSupport
import Testing

/// A cluster that answers badly: scripts/testbed/fault_proxy.py, speaking TLS, in front of the real test API server,
/// spoils every answer in one way at a time. Each ends `mcloud apply` with exit 1 (or 0 where the answer stays
/// readable) and an error naming the cloud and the operation, and the limit for answers that never end, within the
/// limits set, without the cluster's token anywhere in the output; with good answers again, one apply converges.
@Suite(.serialized) struct BadAnswersTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var mode: String
        /// A readable answer with a flaw mcloud may take: a field it does not read changed or missing, a stray byte in
        /// a string, a wrong Content-Type.
        var mayPass = false
        /// What the error must say besides the cloud and the operation.
        var says: String?
        var testDescription: String { mode }
    }

    static let cases: [Case] = [
        Case(mode: "truncate", says: "transfer closed"),
        Case(mode: "stall", says: "MCLOUD_HTTP_"),
        Case(mode: "huge-length", says: "MCLOUD_HTTP_MAX_RESPONSE_MB"),
        Case(mode: "endless", says: "MCLOUD_HTTP_MAX_RESPONSE_MB"),
        Case(mode: "html-200", says: "not JSON"),
        Case(mode: "empty", says: "not JSON"),
        Case(mode: "deep-nesting", says: "nested deeper"),
        Case(mode: "status-500", says: "500"),
        Case(mode: "retype", mayPass: true),
        Case(mode: "drop-field", mayPass: true),
        Case(mode: "invalid-utf8", mayPass: true),
        Case(mode: "content-type", mayPass: true),
    ]

    static let limits = ["MCLOUD_HTTP_TIMEOUT": "20", "MCLOUD_HTTP_STALL_TIMEOUT": "2", "MCLOUD_HTTP_MAX_RESPONSE_MB": "8"]

    @Test func everyBadAnswerEndsApplyWithAClearErrorAndTheNextApplyRepairsIt() async throws {
        let bed = try EngineWorkspace.kubernetesBed()
        let pki = try TestPKI()
        let proxy = try ScriptProcess("\(repositoryRoot)/scripts/testbed/fault_proxy.py", [
            "--upstream", bed["MCLOUD_TEST_KUBE_SERVER"], "--upstream-ca", bed["MCLOUD_TEST_KUBE_CA_FILE"],
            "--tls", pki.path("server.pem"), pki.path("server.key"),
        ])
        let token = bed["MCLOUD_TEST_KUBE_ADMIN_TOKEN"]
        let workspace = try EngineWorkspace()
        let kubeconfig = "\(workspace.folder)/proxy-kubeconfig"
        try Self.kubeconfig(server: "https://127.0.0.1:\(proxy.port)", authority: try pki.bytes("ca.pem"), token: token).write(toFile: kubeconfig, atomically: true, encoding: .utf8)
        try workspace.editCatalog("context: admin-cert, kubeconfig: \(workspace.kubeconfig)", "context: proxy, kubeconfig: \(kubeconfig)")
        let control = "https://127.0.0.1:\(proxy.port)/__fault"
        let transport = CurlTransport(tls: TLSConfiguration(certificateAuthorityPEM: try pki.bytes("ca.pem")))

        for item in Self.cases {
            _ = try await transport.send(HTTPRequest(method: .DELETE, url: control))
            let rule = JSONValue.object([("match", .string("")), ("corrupt", .string(item.mode))])
            _ = try await transport.send(HTTPRequest(method: .POST, url: control, body: Array(rule.serialized(pretty: false).utf8)))
            let run = await workspace.run("apply", ["--auto-approve"], environment: Self.limits.merging(["MCLOUD_ALLOWED_KUBECONFIGS": kubeconfig]) { $1 })
            let output = run.stdout + run.stderr
            #expect(!output.contains(token), "\(item.mode): the token leaked")
            if item.mayPass, run.exitCode == 0 { continue }
            #expect(run.exitCode == 1, "\(item.mode): \(output)")
            let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") || $0.hasPrefix("  kubernetes.") }
            #expect(!errors.isEmpty, "\(item.mode): no error line in \(run.stderr)")
            for line in errors {
                #expect(line.contains("lab"), "\(item.mode): the cloud is not named: \(line)")
                #expect(["discover", "apply ", "get ", "list ", "delete ", "create ", "update "].contains { line.contains($0) }, "\(item.mode): the operation is not named: \(line)")
            }
            // A retried fault may meet the deadline on a busy machine: the deadline's error then names the fault.
            if let says = item.says { #expect(run.stderr.contains(says), "\(item.mode): \(run.stderr)") }
        }

        _ = try await transport.send(HTTPRequest(method: .DELETE, url: control))
        let allowed = ["MCLOUD_ALLOWED_KUBECONFIGS": kubeconfig]
        let repaired = await workspace.run("apply", ["--auto-approve"], environment: Self.limits.merging(allowed) { $1 })
        #expect(repaired.exitCode == 0, "\(repaired.stdout)\(repaired.stderr)")
        #expect(await workspace.run("plan", ["--detailed-exitcode"], environment: allowed).exitCode == 0)
        #expect(await workspace.run("destroy", ["--auto-approve"], environment: allowed).exitCode == 0)
        _ = proxy
    }

    static func kubeconfig(server: String, authority: [UInt8], token: String) -> String {
        """
        apiVersion: v1
        kind: Config
        clusters:
          - name: proxy
            cluster: { server: "\(server)", certificate-authority-data: "\(Data(authority).base64EncodedString())" }
        users:
          - name: admin
            user: { token: "\(token)" }
        contexts:
          - name: proxy
            context: { cluster: proxy, user: admin }
        current-context: proxy

        """
    }
}
