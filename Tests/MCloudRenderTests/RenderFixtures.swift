import Foundation
import MCloudCore
import MCloudManifest
import MCloudPlanner
import MCloudSecrets
@testable import MCloudRender
import MCloudYAML
import Testing

/// The bundled examples and a small hand-made application, with helpers to find rendered objects.
enum RenderFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let examples = ["retail-bank", "shop", "telemed"]

    /// A bundled example, validated and planned.
    static func example(_ name: String) throws -> (Model, PlacementPlan) {
        try #require(planned[name], "the \(name) example does not validate or has no placement")
    }

    /// The repository the examples' bootstrap objects name.
    static let source = Bootstrap.Source(url: "https://git.example/platform/deploy.git", branch: "main")

    /// What `render` writes for an example, the marker aside: its tree, its bootstrap objects and its Secrets,
    /// encrypted with the fixture identity.
    static func exampleTree(_ name: String) throws -> RenderedTree {
        let (model, plan) = try example(name)
        let rendering = Rendering(model: model, placement: Placement(plan))
        return try rendering.sealedTree(with: Bootstrap(model: model, rendering: rendering, source: source), sealing: sealing(model))
    }

    /// The CLI tests' age identity (`Tests/MCloudCLITests/Fixtures/age.key`): it protects nothing but the tests.
    static func identity() throws -> AgeIdentity {
        try AgeKeyFile.load(path: "\(root)/Tests/MCloudCLITests/Fixtures/age.key")
    }

    static func sealing(_ model: Model) throws -> SecretSealing {
        try SecretSealing(identity: identity(), clouds: model.clouds)
    }

    /// Each example is planned once for all the tests: planning is the slow part.
    private static let planned: [String: (Model, PlacementPlan)] = Dictionary(uniqueKeysWithValues: examples.compactMap { name in
        let set = ManifestLoader.load(paths: ["\(root)/Manifests/\(name)"], providers: "\(root)/Providers")
        guard let model = set.model, case .success(let plan) = Planner.plan(model) else { return nil }
        return (name, (model, plan))
    })

    /// A model from YAML documents, which must validate.
    static func model(_ documents: [String]) throws -> Model {
        let set = ManifestLoader.load([ManifestLoader.Source(file: "test.yaml", bytes: Array(documents.joined(separator: "\n---\n").utf8))])
        return try #require(set.model, "the test manifests do not validate: \(set.diagnostics.map(\.description))")
    }

    /// Shop: three clouds (only c1 sells managed PostgreSQL), audiences ru and eu. `web` (public) uses `api` and
    /// `orders-db`; `api` uses `orders-db` and the global `rates`; the global `reports` uses `api` and `orders-db`
    /// of every audience; `rates` uses the global `rates-db`.
    static func shop(objectStorageURL: String? = nil) throws -> Model {
        let objectStorage = objectStorageURL.map { "\n    objectStorage: { url: \"\($0)\" }" } ?? ""
        func cloud(_ name: String, dbaas: String) -> String {
            """
            apiVersion: mcloud/v1
            kind: Cloud
            metadata: { name: \(name) }
            spec:
              vendor: vendor-\(name)
              api: openstack
              jurisdiction: [RU, EU]
              region: \(name)
              zones: [\(name)-a, \(name)-b]
              offers: { kubernetes: true, vm: true, dbaas: \(dbaas), objectStorage: true, cdn: { pops: [RU, EU] } }
              capacity: { vcpu: 100, memoryGiB: 400, storageGiB: 10000 }
              pricing: { currency: USD, vcpuHour: 0.01, memoryGiBHour: 0.001, storageGiBMonth: 0.1, objectStorageGiBMonth: 0.02, egressGiB: 0.05, cdnGiB: 0.01 }
              latencyMs: { ru: 10, eu: 10 }
              endpoints:
                kubernetes: { context: \(name)-context-secretish }
                cdn: { url: "https://cdn.\(name).example/api", tokenEnv: \(name.uppercased())_CDN_TOKEN }\(objectStorage)
            """
        }
        func service(_ name: String, scope: String, ports: String, dependsOn: String, extra: String = "") -> String {
            """
            apiVersion: mcloud/v1
            kind: Service
            metadata: { name: \(name), labels: { team: shop, "bad label": x } }
            spec:
              image: registry.example/\(name):1
              scope: \(scope)
              replicas: 3
              resources: { cpu: 250m, memory: 256Mi }
              ports: \(ports)
              dependsOn: \(dependsOn)
              autoscale: { min: 3, max: 9 }
            \(extra)
            """
        }
        return try model([
            cloud("c1", dbaas: "[postgresql]"), cloud("c2", dbaas: "[]"), cloud("c3", dbaas: "[]"),
            """
            apiVersion: mcloud/v1
            kind: Application
            metadata: { name: shop }
            spec:
              currency: USD
              audiences:
                - { name: ru, jurisdiction: RU }
                - { name: eu, jurisdiction: EU }
            """,
            service("web", scope: "perAudience", ports: "[{ name: http, port: 8080 }]", dependsOn: "[{ name: api }, { name: orders-db }]",
                    extra: "  expose: { public: true, path: /shop }\n  probes: { readiness: { path: /ready, port: http }, liveness: { path: /live, port: 8080 } }"),
            service("api", scope: "perAudience", ports: "[{ name: http, port: 8080 }, { name: metrics, port: 9090 }]", dependsOn: "[{ name: orders-db }, { name: rates }]"),
            service("rates", scope: "global", ports: "[{ name: http, port: 8080 }]", dependsOn: "[{ name: rates-db }]"),
            service("reports", scope: "global", ports: "[{ name: http, port: 8080 }]", dependsOn: "[{ name: api }, { name: orders-db }]"),
            """
            apiVersion: mcloud/v1
            kind: Database
            metadata: { name: orders-db }
            spec:
              engine: postgresql
              version: "16"
              scope: perAudience
              size: { vcpu: 2, memoryGiB: 8, storageGiB: 100 }
              standbys: 1
              backup: { schedule: "0 3 * * *", retentionDays: 7, disasterRecovery: { differentVendor: true, changeGiBDay: 2 } }
            """,
            """
            apiVersion: mcloud/v1
            kind: Database
            metadata: { name: rates-db }
            spec:
              engine: redis
              version: "7.2"
              scope: global
              size: { vcpu: 1, memoryGiB: 2, storageGiB: 10 }
              standbys: 1
            """,
            """
            apiVersion: mcloud/v1
            kind: CDN
            metadata: { name: assets }
            spec:
              origins: [web]
              audiences: [ru]
              trafficGiBMonth: 100
              cache: [{ path: "/static/*", ttlSeconds: 3600 }]
            """,
        ])
    }

    /// The shop placed by hand: web@ru 2 on c1 and 1 on c2, api@ru only on c1, rates on c1 and c3, reports only on c2.
    static let shopPlacement = Placement(
        services: [
            "web@ru": [(cloud: "c1", count: 2), (cloud: "c2", count: 1)],
            "web@eu": [(cloud: "c3", count: 3)],
            "api@ru": [(cloud: "c1", count: 3)],
            "api@eu": [(cloud: "c3", count: 3)],
            "rates": [(cloud: "c1", count: 2), (cloud: "c3", count: 1)],
            "reports": [(cloud: "c2", count: 3)],
        ],
        databases: ["orders-db@ru": (primary: "c1", backup: "c2"), "orders-db@eu": (primary: "c3", backup: "c1"), "rates-db": (primary: "c2", backup: nil)],
        cdns: ["assets": "c3"]
    )
}

extension Rendering {
    func objects(on cloud: String) -> [KubernetesObject] {
        clusters.first { $0.cloud == cloud }?.objects ?? []
    }

    func object(on cloud: String, _ kind: String, _ namespace: String, _ name: String) -> KubernetesObject? {
        objects(on: cloud).first { $0.kind == kind && $0.namespace == namespace && $0.name == name }
    }

    var allObjects: [(cloud: String, object: KubernetesObject)] {
        clusters.flatMap { cluster in cluster.objects.map { (cloud: cluster.cloud, object: $0) } }
    }

    var allResources: [InfrastructureResource] {
        infrastructure.flatMap(\.resources)
    }
}

extension ObjectNode {
    /// The same tree as a `YAMLNode`, for MCloudYAML's emitter and for comparing with what its reader reads back.
    var yamlNode: YAMLNode {
        switch self {
        case .string(let value): return .string(value)
        case .int(let value): return .int(value)
        case .number(let value): return .number(value)
        case .bool(let value): return .bool(value)
        case .list(let items): return .list(items.map(\.yamlNode))
        case .map, .shared: return .map(fields.map { ($0.0, $0.1.yamlNode) })
        }
    }

    /// The tree as text, to compare two trees.
    var yaml: String { BlockYAMLWriter.document(self) }

    /// The string values under `path` of keys, such as `["spec", "selector", "matchLabels"]`.
    func at(_ path: String...) -> ObjectNode? {
        path.reduce(Optional(self)) { $0?[$1] }
    }
}
