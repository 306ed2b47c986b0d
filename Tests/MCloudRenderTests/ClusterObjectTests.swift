import MCloudCore
import MCloudPlanner
@testable import MCloudRender
import Testing

/// What each cluster gets for each cell, on the hand-placed shop (RenderFixtures.shopPlacement) and the examples.
@Suite struct ClusterObjectTests {
    static func shop() throws -> Rendering {
        Rendering(model: try RenderFixtures.shop(), placement: RenderFixtures.shopPlacement)
    }

    struct Placed: Sendable, CustomTestStringConvertible {
        var cloud: String
        var namespace: String
        var workload: String
        var replicas: Int
        var autoscaler: (min: Int, max: Int)
        var testDescription: String { "\(workload) in \(namespace) on \(cloud)" }
    }

    /// web@ru is 2 + 1 and rates 2 + 1 with autoscale 3...9: 2...6 and 1...3. A budget only with two replicas or more.
    @Test(arguments: [
        Placed(cloud: "c1", namespace: "shop-ru", workload: "web", replicas: 2, autoscaler: (2, 6)),
        Placed(cloud: "c2", namespace: "shop-ru", workload: "web", replicas: 1, autoscaler: (1, 3)),
        Placed(cloud: "c1", namespace: "shop-ru", workload: "api", replicas: 3, autoscaler: (3, 9)),
        Placed(cloud: "c1", namespace: "shop", workload: "rates", replicas: 2, autoscaler: (2, 6)),
        Placed(cloud: "c3", namespace: "shop", workload: "rates", replicas: 1, autoscaler: (1, 3)),
        Placed(cloud: "c2", namespace: "shop", workload: "reports", replicas: 3, autoscaler: (3, 9)),
    ])
    func eachClusterRunsItsShareWithItsOwnAutoscalerAndABudgetFromTwoReplicas(_ test: Placed) throws {
        let rendering = try Self.shop()
        let deployment = try #require(rendering.object(on: test.cloud, "Deployment", test.namespace, test.workload))
        #expect(deployment.body.at("spec", "replicas")?.intValue == test.replicas)
        #expect(deployment.body.at("spec", "strategy", "type")?.stringValue == "RollingUpdate")
        let autoscaler = try #require(rendering.object(on: test.cloud, "HorizontalPodAutoscaler", test.namespace, test.workload))
        #expect(autoscaler.apiVersion == "autoscaling/v2")
        #expect(autoscaler.body.at("spec", "minReplicas")?.intValue == test.autoscaler.min)
        #expect(autoscaler.body.at("spec", "maxReplicas")?.intValue == test.autoscaler.max)
        #expect(autoscaler.body.at("spec", "scaleTargetRef", "name")?.stringValue == test.workload)
        let budget = rendering.object(on: test.cloud, "PodDisruptionBudget", test.namespace, test.workload)
        #expect((budget != nil) == (test.replicas >= 2))
        if let budget {
            #expect(budget.apiVersion == "policy/v1")
            #expect(budget.body.at("spec", "maxUnavailable")?.intValue == 1)
        }
    }

    @Test(arguments: [(1, false), (2, true), (3, true), (10, true)])
    func aDisruptionBudgetNeedsTwoReplicas(_ replicas: Int, _ needed: Bool) {
        #expect(DisruptionBudgetBuilder.isNeeded(replicas: replicas) == needed)
    }

    @Test func aCloudGetsOnlyTheNamespacesOfTheCellsItRuns() throws {
        let rendering = try Self.shop()
        let namespaces = rendering.clusters.map { cluster in
            (cluster.cloud, cluster.objects.filter { $0.kind == "Namespace" }.map(\.name))
        }
        #expect(namespaces.map(\.0) == ["c1", "c2", "c3"])
        #expect(namespaces.map(\.1) == [["shop", "shop-ru"], ["shop", "shop-ru"], ["shop", "shop-eu"]])
        let namespace = try #require(rendering.object(on: "c3", "Namespace", "shop-eu", "shop-eu"))
        #expect(namespace.body.at("metadata", "labels", "mcloud.io/audience")?.stringValue == "eu")
        #expect(namespace.path == "shop-eu/namespace.yaml")
    }

    @Test func thePodsReadTheirDatabasesPrimariesFromTheEndpointsConfigMap() throws {
        let rendering = try Self.shop()
        let web = try #require(rendering.object(on: "c2", "ConfigMap", "shop-ru", "web-endpoints"))
        #expect(web.body["data"]?.yaml == "ORDERS_DB_HOST: orders-db.shop-ru.c1.mcloud.internal\nORDERS_DB_PORT: \"5432\"\n")
        // A global cell that uses a perAudience database gets every audience's primary.
        let reports = try #require(rendering.object(on: "c2", "ConfigMap", "shop", "reports-endpoints"))
        #expect(reports.body["data"]?.fields.map(\.0) == ["ORDERS_DB_EU_HOST", "ORDERS_DB_EU_PORT", "ORDERS_DB_RU_HOST", "ORDERS_DB_RU_PORT"])
        #expect(reports.body.at("data", "ORDERS_DB_EU_HOST")?.stringValue == "orders-db.shop-eu.c3.mcloud.internal")
        let container = try #require(rendering.object(on: "c2", "Deployment", "shop", "reports")?.body.at("spec", "template", "spec", "containers")?.items.first)
        #expect(container.at("envFrom")?.items.first?.at("configMapRef", "name")?.stringValue == "reports-endpoints")
    }

    @Test func aCellWithoutDatabasesGetsNoEndpoints() throws {
        let (model, plan) = try RenderFixtures.example("retail-bank")
        let rendering = Rendering(model: model, placement: Placement(plan))
        let gateways = rendering.allObjects.filter { $0.object.kind == "Deployment" && $0.object.name == "core-gateway" }
        #expect(!gateways.isEmpty)
        for (cloud, deployment) in gateways {
            #expect(rendering.object(on: cloud, "ConfigMap", deployment.namespace, "core-gateway-endpoints") == nil)
            #expect(deployment.body.at("spec", "template", "spec", "containers")?.items.first?["envFrom"] == nil)
            #expect(deployment.body.at("spec", "template", "metadata", "annotations") == nil)
        }
    }

    @Test func movingADatabasePrimaryRollsThePodsOntoTheNewAddress() throws {
        var moved = RenderFixtures.shopPlacement
        moved.databases["orders-db@ru"] = (primary: "c2", backup: "c1")
        let before = try Self.shop().object(on: "c1", "Deployment", "shop-ru", "web")
        let after = Rendering(model: try RenderFixtures.shop(), placement: moved).object(on: "c1", "Deployment", "shop-ru", "web")
        let old = try #require(before?.body.at("spec", "template", "metadata", "annotations", "mcloud.io/endpoints-hash")?.stringValue)
        let new = try #require(after?.body.at("spec", "template", "metadata", "annotations", "mcloud.io/endpoints-hash")?.stringValue)
        #expect(old != new)
        #expect(before?.body.at("spec", "selector")?.yaml == after?.body.at("spec", "selector")?.yaml)
    }

    @Test func aPublicServiceGetsAnIngressForItsPathAndProbesAsDeclared() throws {
        let rendering = try Self.shop()
        let ingress = try #require(rendering.object(on: "c1", "Ingress", "shop-ru", "web"))
        let path = try #require(ingress.body.at("spec", "rules")?.items.first?.at("http", "paths")?.items.first)
        #expect(path["path"]?.stringValue == "/shop")
        #expect(path["pathType"]?.stringValue == "Prefix")
        #expect(path.at("backend", "service", "name")?.stringValue == "web")
        #expect(path.at("backend", "service", "port", "name")?.stringValue == "http")
        #expect(rendering.object(on: "c1", "Ingress", "shop-ru", "api") == nil)
        let container = try #require(rendering.object(on: "c1", "Deployment", "shop-ru", "web")?.body.at("spec", "template", "spec", "containers")?.items.first)
        #expect(container.at("readinessProbe", "httpGet", "port")?.stringValue == "http")
        #expect(container.at("livenessProbe", "httpGet", "port")?.intValue == 8080)
        #expect(container.at("resources", "requests", "cpu")?.stringValue == "250m")
        #expect(container.at("resources", "limits") == nil)
        let api = try #require(rendering.object(on: "c1", "Deployment", "shop-ru", "api")?.body.at("spec", "template", "spec", "containers")?.items.first)
        #expect(api["readinessProbe"] == nil && api["livenessProbe"] == nil)
    }

    @Test(arguments: RenderFixtures.examples)
    func everyObjectCarriesTheRecommendedLabelsAndValidNames(_ name: String) throws {
        let (model, plan) = try RenderFixtures.example(name)
        let rendering = Rendering(model: model, placement: Placement(plan))
        for (cloud, object) in rendering.allObjects {
            let labels = try #require(object.body.at("metadata", "labels"))
            #expect(labels["app.kubernetes.io/part-of"]?.stringValue == model.application.name)
            #expect(labels["app.kubernetes.io/managed-by"]?.stringValue == "mcloud")
            #expect(labels["app.kubernetes.io/name"]?.stringValue != nil)
            #expect(labels["app.kubernetes.io/instance"]?.stringValue != nil)
            #expect(labels["mcloud.io/cloud"]?.stringValue == cloud)
            for (key, value) in labels.fields {
                #expect(KubernetesName.isLabelKey(key) && KubernetesName.isLabelValue(value.stringValue ?? "-"), "\(key): \(value.yaml)")
            }
            #expect(Self.isDNSLabel(object.namespace), "\(object.namespace)")
            #expect(object.kind == "Service" ? Self.isDNSLabel(object.name) && object.name.first?.isLetter == true : Self.isDNSSubdomain(object.name))
        }
    }

    @Test func workloadLabelsAreCopiedOnlyWhenKubernetesAcceptsThem() throws {
        let labels = try #require(try Self.shop().object(on: "c1", "Deployment", "shop-ru", "web")?.body.at("metadata", "labels"))
        #expect(labels["team"]?.stringValue == "shop")
        #expect(labels["bad label"] == nil)
    }

    /// Names past 63 characters keep their start and a hash of the whole, so they stay valid and apart.
    @Test func longNamesAreShortenedToValidDistinctNames() {
        let long = String(repeating: "a", count: 60)
        let first = KubernetesName.fit(long + "-first")
        let second = KubernetesName.fit(long + "-second")
        #expect(first.count == 63 && second.count == 63 && first != second)
        #expect(Self.isDNSLabel(first) && Self.isDNSLabel(second))
        #expect(KubernetesName.fit("short") == "short")
        #expect(Topology.namespace(application: long, audience: "europe-and-more").count <= 63)
        #expect(KubernetesName.service("3ds-gateway") == "svc-3ds-gateway")
        #expect(KubernetesName.service("gateway") == "gateway")
    }

    static func isDNSLabel(_ name: String) -> Bool {
        guard let first = name.first, let last = name.last, name.count <= 63 else { return false }
        return first != "-" && last != "-" && name.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    static func isDNSSubdomain(_ name: String) -> Bool {
        name.count <= 253 && name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { isDNSLabel(String($0)) }
    }
}
