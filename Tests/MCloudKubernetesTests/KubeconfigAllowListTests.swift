import Foundation
import MCloudCore
import MCloudKubernetes
import MCloudKubernetesProvider
import MCloudProvider
import Testing

/// A catalog comes through merge requests: the kubeconfig it names is used only when the operator allows that file,
/// so a hostile one never runs its exec plugin or sends anything to its server.
@Suite struct KubeconfigAllowListTests {
    /// Which kubeconfig the catalog names, and what the operator's environment allows.
    struct Case: Sendable, CustomTestStringConvertible {
        var behaviour: String
        /// Paths relative to the test's folder; `hostile` is the file with the exec plugin.
        var named: String
        var environment: [String: String]
        var refused: Bool
        var testDescription: String { behaviour }
    }

    @Test(arguments: [
        Case(behaviour: "a kubeconfig only the catalog names is refused", named: "hostile", environment: [:], refused: true),
        Case(behaviour: "a list that hides it behind the operator's own is refused", named: "home/.kube/config:hostile", environment: [:], refused: true),
        Case(behaviour: "another spelling of an allowed path is the same file", named: "sub/../hostile", environment: ["MCLOUD_ALLOWED_KUBECONFIGS": "other:hostile"], refused: false),
        Case(behaviour: "a file listed in MCLOUD_ALLOWED_KUBECONFIGS is used", named: "hostile", environment: ["MCLOUD_ALLOWED_KUBECONFIGS": "hostile"], refused: false),
        Case(behaviour: "the file KUBECONFIG names is the operator's own", named: "hostile", environment: ["KUBECONFIG": "hostile"], refused: false),
        Case(behaviour: "~/.kube/config is the operator's own", named: "home/.kube/config", environment: [:], refused: false),
    ])
    func aCatalogKubeconfigIsUsedOnlyWhenTheOperatorAllowsIt(_ test: Case) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-allow-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: "\(folder)/home/.kube", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(folder)/sub", withIntermediateDirectories: true)
        let marker = "\(folder)/plugin-ran"
        let plugin = "\(folder)/get-token"
        let credential = #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}}"#
        try "#!/bin/sh\ntouch '\(marker)'\necho '\(credential)'\n".write(toFile: plugin, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugin)
        let kubeconfig = """
            clusters: [{ name: c, cluster: { server: "http://127.0.0.1:9" } }]
            users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: \(plugin) } } }]
            contexts: [{ name: lab, context: { cluster: c, user: u } }]

            """
        try kubeconfig.write(toFile: "\(folder)/hostile", atomically: true, encoding: .utf8)
        try kubeconfig.write(toFile: "\(folder)/home/.kube/config", atomically: true, encoding: .utf8)
        func absolute(_ list: String) -> String { list.split(separator: ":").map { "\(folder)/\($0)" }.joined(separator: ":") }
        var environment = test.environment.mapValues(absolute)
        environment["HOME"] = "\(folder)/home"
        let cloud = Cloud(
            name: "lab", vendor: "vk", api: .openstack, jurisdiction: ["EU"], region: "r", zones: [], offers: .init(),
            capacity: .init(vcpu: 1, memoryGiB: 1, storageGiB: 1), pricing: .init(currency: "EUR", vcpuHour: 0, memoryGiBHour: 0), latencyMs: [:],
            endpoints: .init(kubernetesContext: "lab", kubeconfig: absolute(test.named)), location: SourceLocation(file: "providers/lab.yaml", line: 3, column: 1)
        )

        do throws(ProviderError) {
            let provider = try KubernetesProviderCatalog(environment: environment).provider(named: "kubernetes", for: cloud)
            #expect(!test.refused, "the catalog's kubeconfig was accepted")
            // A desired object makes the refresh ask the cluster, which first runs the plugin for a token.
            let body = JSONValue.object([
                ("apiVersion", .string("v1")), ("kind", .string("ConfigMap")), ("metadata", .object([("name", .string("web")), ("namespace", .string("shop"))])),
            ])
            let desired = DesiredResource(address: "kubernetes.lab.v1.ConfigMap.shop.web", provider: "kubernetes", cloud: "lab", type: "ConfigMap", body: body, dependencies: [])
            if test.refused { _ = try? await provider.refresh(application: "shop", desired: [desired], recorded: []) }
        } catch {
            #expect(test.refused, "\(error)")
            #expect(error.message.contains("cloud lab (providers/lab.yaml:3:1): endpoints.kubernetes.kubeconfig names \(folder)/hostile,"), "\(error)")
            #expect(error.message.contains("MCLOUD_ALLOWED_KUBECONFIGS"))
        }
        #expect(!FileManager.default.fileExists(atPath: marker), "the exec plugin ran")
    }
}
