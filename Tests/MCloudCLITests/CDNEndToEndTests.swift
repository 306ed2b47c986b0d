import Foundation
import MCloudCore
import MCloudHTTP
import MCloudTestSupport
import Testing

/// `mcloud apply --target cdn.` on the retail-bank example: the CDN resources go to the G-Core-style test server
/// (scripts/testbed/cdn_server.py), and the Ingresses they depend on to the Kubernetes test bed.
@Suite(.serialized) struct CDNEndToEndTests {
    @Test("apply creates each CDN resource with its origins and cache rules, plan then shows no CDN change, destroy leaves nothing")
    func applyPlanDestroy() async throws {
        let bed = try CDNWorkspace()
        let applied = await bed.run("apply", ["--auto-approve"])
        #expect(applied.exitCode == 0, "\(applied.stdout)\(applied.stderr)")
        #expect(applied.stdout.contains("cdn.gcore-lux.CDNResource.\(bed.application).static-eu"))

        let state = try await bed.serverState()
        let resources = state["resources"]?.arrayItems ?? []
        #expect(resources.compactMap { $0["name"]?.stringValue }.sorted() == ["\(bed.application).static-eu", "\(bed.application).static-ru"])
        let sources = Set((state["origin_groups"]?.arrayItems ?? []).flatMap { $0["sources"]?.arrayItems ?? [] }.compactMap { $0["source"]?.stringValue })
        #expect(sources == Set(bed.expectedOrigins))
        let rules = (state["rules"]?.arrayItems ?? []).compactMap { rule in
            rule["name"]?.stringValue.map { "\($0) \(rule.value(at: ["options", "edge_cache_settings", "value"])?.stringValue ?? "")" }
        }
        #expect(Set(rules) == ["/static/* 86400s", "/fonts/* 2592000s", "/img/* 604800s"])
        #expect(rules.count == 6)

        // Only the CDN lines count: every cluster of the example is the one bed here, so the Ingress and Namespace
        // two clouds share differ in their mcloud.io/cloud label.
        let again = await bed.run("plan", [])
        #expect(again.exitCode == 0, "\(again.stderr)")
        let cdnChanges = again.stdout.split(separator: "\n").filter { $0.contains("cdn.") && ($0.contains("+ ") || $0.contains("~ ") || $0.contains("- ")) }
        #expect(cdnChanges.isEmpty, "\(again.stdout)")

        let destroyed = await bed.run("destroy", ["--auto-approve"])
        #expect(destroyed.exitCode == 0, "\(destroyed.stdout)\(destroyed.stderr)")
        let after = try await bed.serverState()
        #expect(after["resources"]?.arrayItems.isEmpty == true)
        #expect(after["origin_groups"]?.arrayItems.isEmpty == true)
        #expect(after["rules"]?.arrayItems.isEmpty == true)
    }
}

extension CDNEndToEndTests {
    /// A whole application, cluster objects and the CDN in front of them, on one cloud: apply, a clean plan, destroy.
    @Test func aWholeApplicationWithItsCDNPlansCleanAfterApply() async throws {
        let workspace = try EngineWorkspace(fixture: "engine-cdn")
        let server = try CDNTestServer(token: CDNWorkspace.token)
        try workspace.editCatalog("CDN_URL", "\(server.url)/cdn")
        let environment = ["LAB_CDN_TOKEN": CDNWorkspace.token, "MCLOUD_ALLOWED_TOKEN_ENV": "LAB_CDN_TOKEN", "MCLOUD_CDN_POLL_SECONDS": "0.05"]
        let applied = await workspace.run("apply", ["--auto-approve"], environment: environment)
        #expect(applied.exitCode == 0, "\(applied.stdout)\(applied.stderr)")
        #expect(applied.stdout.contains("cdn.lab.CDNResource.\(workspace.application).assets: Creation complete"))
        let sources = (try await server.state()["origin_groups"]?.arrayItems ?? []).flatMap { $0["sources"]?.arrayItems ?? [] }
        #expect(sources.compactMap { $0["source"]?.stringValue } == ["web.\(workspace.namespace).lab.origins.mcloud.internal"])
        let again = await workspace.run("plan", ["--detailed-exitcode"], environment: environment)
        #expect(again.exitCode == 0, "\(again.stdout)\(again.stderr)")
        let destroyed = await workspace.run("destroy", ["--auto-approve"], environment: environment)
        #expect(destroyed.exitCode == 0, "\(destroyed.stderr)")
        #expect(try await server.state()["resources"]?.arrayItems.isEmpty == true)
        #expect(try await workspace.listed("apps/v1", "Deployment").isEmpty)
    }
}

/// The retail-bank example under a unique application name (so its namespaces are new on the shared Kubernetes
/// bed), with a catalog whose CDN endpoints point at a fresh CDN test server and whose clusters are the bed.
final class CDNWorkspace {
    static let token = "cdn-e2e-token"
    let folder: String
    let application: String
    let server: CDNTestServer
    let serverURL: String
    let kubeconfig: String

    init() throws {
        kubeconfig = try EngineWorkspace.kubernetesBed()["MCLOUD_TEST_KUBECONFIG"]
        application = "rb-\(UUID().uuidString.prefix(6).lowercased())"
        folder = NSTemporaryDirectory() + "mcloud-cdn-\(application)"
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder + "/app", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: folder + "/providers", withIntermediateDirectories: true)

        server = try CDNTestServer(token: Self.token)
        serverURL = server.url

        for file in try manager.contentsOfDirectory(atPath: "\(repositoryRoot)/Manifests/retail-bank") where file.hasSuffix(".yaml") {
            let text = try String(contentsOfFile: "\(repositoryRoot)/Manifests/retail-bank/\(file)", encoding: .utf8)
            try text.replacingOccurrences(of: "name: retail-bank", with: "name: \(application)").write(toFile: "\(folder)/app/\(file)", atomically: true, encoding: .utf8)
        }
        let cdn = try NSRegularExpression(pattern: #"cdn: \{ url: "[^"]*""#)
        let kubernetes = try NSRegularExpression(pattern: #"kubernetes: \{ context: [^ ,}]+(, egressCIDRs: \[[^\]]*\])?(, clusterSet: [a-z0-9-]+)? \}"#)
        for file in try manager.contentsOfDirectory(atPath: "\(repositoryRoot)/Providers") where file.hasSuffix(".yaml") {
            var text = try String(contentsOfFile: "\(repositoryRoot)/Providers/\(file)", encoding: .utf8)
            text = cdn.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "cdn: { url: \"\(serverURL)/cdn\"")
            text = kubernetes.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "kubernetes: { context: admin-cert, kubeconfig: \(kubeconfig)$1$2 }"
            )
            try text.write(toFile: "\(folder)/providers/\(file)", atomically: true, encoding: .utf8)
        }
    }

    /// The origin hosts the example's web cells give (retail-bank places web@eu on aws-irl and gcore-lux, web@ru
    /// on sel-msk and sel-spb).
    var expectedOrigins: [String] {
        ["aws-irl", "gcore-lux"].map { "web.\(application)-eu.\($0).origins.mcloud.internal" }
            + ["sel-msk", "sel-spb"].map { "web.\(application)-ru.\($0).origins.mcloud.internal" }
    }

    func run(_ command: String, _ arguments: [String]) async -> Run {
        let options = ["-f", "\(folder)/app", "--providers", "\(folder)/providers", "--state", "file://\(folder)/state.json", "--target", "cdn."]
        let environment = [
            "NO_COLOR": "1", "GCORE_API_TOKEN": Self.token, "SELECTEL_CDN_TOKEN": Self.token, "VK_CDN_TOKEN": Self.token, "MCLOUD_CDN_POLL_SECONDS": "0.05",
            "MCLOUD_ALLOWED_TOKEN_ENV": "GCORE_API_TOKEN,SELECTEL_CDN_TOKEN,VK_CDN_TOKEN", "MCLOUD_ALLOWED_KUBECONFIGS": kubeconfig,
        ]
        return await mcloudRun([command] + options + arguments, environment: environment)
    }

    func serverState() async throws -> JSONValue {
        try await server.state()
    }
}

/// scripts/testbed/cdn_server.py on a free port for one test, killed with it.
final class CDNTestServer {
    let script: ScriptProcess
    var url: String { script.url }

    init(token: String) throws {
        script = try ScriptProcess("\(repositoryRoot)/scripts/testbed/cdn_server.py", ["--token", token, "--deploy-reads", "1"])
    }

    /// What the server holds: resources, origin groups, rules.
    func state() async throws -> JSONValue {
        let response = try await CurlTransport().send(HTTPRequest(method: .GET, url: "\(url)/__control/state"))
        return try JSONParser.parse(response.body)
    }
}
