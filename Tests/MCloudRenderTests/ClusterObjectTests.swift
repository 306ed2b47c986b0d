import MCloudCore
import MCloudPlanner
import MCloudProvider
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

    @Test func thePodsReadTheNamesOfTheirDatabasesInTheirOwnNamespaceFromTheEndpointsConfigMap() throws {
        let rendering = try Self.shop()
        let web = try #require(rendering.object(on: "c2", "ConfigMap", "shop-ru", "web-endpoints"))
        #expect(web.body["data"]?.yaml == "ORDERS_DB_HOST: orders-db.shop-ru.svc\nORDERS_DB_PORT: \"5432\"\n")
        // A global cell that uses a perAudience database gets every audience's primary.
        let reports = try #require(rendering.object(on: "c2", "ConfigMap", "shop", "reports-endpoints"))
        #expect(reports.body["data"]?.fields.map(\.0) == ["ORDERS_DB_EU_HOST", "ORDERS_DB_EU_PORT", "ORDERS_DB_RU_HOST", "ORDERS_DB_RU_PORT"])
        #expect(reports.body.at("data", "ORDERS_DB_EU_HOST")?.stringValue == "orders-db-eu.shop.svc")
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

    /// The name stays where it was, so the pods keep running; the slice behind it is what points at the new primary.
    @Test func movingADatabasePrimaryKeepsThePodsAndRepointsTheSlice() throws {
        var moved = RenderFixtures.shopPlacement
        moved.databases["orders-db@ru"] = (primary: "c2", backup: "c1")
        let before = Rendering(model: try Self.wiredShop(), placement: RenderFixtures.shopPlacement)
        let after = Rendering(model: try Self.wiredShop(), placement: moved)
        func hash(_ rendering: Rendering) -> String? {
            rendering.object(on: "c1", "Deployment", "shop-ru", "web")?.body.at("spec", "template", "metadata", "annotations", "mcloud.io/endpoints-hash")?.stringValue
        }
        func sources(_ rendering: Rendering) -> String? {
            rendering.object(on: "c1", "EndpointSlice", "shop-ru", "orders-db")?.body.at("metadata", "annotations", "mcloud.io/endpoints-from")?.stringValue
        }
        #expect(hash(before) != nil && hash(after) == hash(before))
        #expect(sources(before) == "openstack.c1.ManagedDatabase.shop-ru.orders-db")
        #expect(sources(after) == "openstack.c2.DatabaseServer.shop-ru.orders-db.0")
    }

    /// The shop with every edge wired: each cluster has egress addresses, and `api` is public.
    static func wiredShop() throws -> Model {
        var model = try RenderFixtures.shop()
        for index in model.clouds.indices { model.clouds[index].endpoints.kubernetesEgressCIDRs = ["192.0.2.\(index * 16)/28"] }
        for index in model.services.indices where model.services[index].name == "api" {
            model.services[index].expose = Service.Expose(isPublic: true, path: "/api")
        }
        return model
    }

    /// The wired shop with `api@ru` on c1 and c3, so that `reports` on c2 reaches it through two Ingresses.
    static func shopWithPublicAPI() throws -> Rendering {
        var placement = RenderFixtures.shopPlacement
        placement.services["api@ru"] = [(cloud: "c1", count: 2), (cloud: "c3", count: 1)]
        return Rendering(model: try wiredShop(), placement: placement)
    }

    struct Name: Sendable, CustomTestStringConvertible {
        var cloud: String
        var namespace: String
        var name: String
        var sources: [String]
        var servicePorts: String
        var slicePorts: String?
        var testDescription: String { "\(name).\(namespace).svc on \(cloud)" }
    }

    /// reports (c2) reaches each audience's api through its Ingresses and each orders-db by its primary's address;
    /// web@ru on c2 reaches orders-db@ru's managed endpoint; rates on c3 reaches rates-db, whose engine's port no
    /// managed offer changes. None of these has a pod in the dependent's cluster to select.
    @Test(arguments: [
        Name(cloud: "c2", namespace: "shop", name: "api-ru", sources: [
            "kubernetes.c1.networking.k8s.io/v1.Ingress.shop-ru.api", "kubernetes.c3.networking.k8s.io/v1.Ingress.shop-ru.api",
        ], servicePorts: "- name: http\n  port: 8080\n  protocol: TCP\n", slicePorts: "- name: http\n  port: 80\n  protocol: TCP\n"),
        Name(cloud: "c2", namespace: "shop", name: "orders-db-eu", sources: ["openstack.c3.DatabaseServer.shop-eu.orders-db.0"],
             servicePorts: "- port: 5432\n  protocol: TCP\n", slicePorts: "- port: 5432\n  protocol: TCP\n"),
        Name(cloud: "c2", namespace: "shop-ru", name: "orders-db", sources: ["openstack.c1.ManagedDatabase.shop-ru.orders-db"],
             servicePorts: "- port: 5432\n  protocol: TCP\n", slicePorts: "- port: 5432\n  protocol: TCP\n"),
        Name(cloud: "c3", namespace: "shop", name: "rates-db", sources: ["openstack.c2.DatabaseServer.shop.rates-db.0"],
             servicePorts: "- port: 6379\n  protocol: TCP\n", slicePorts: "- port: 6379\n  protocol: TCP\n"),
    ])
    func aConnectionFromAnotherClusterGetsASelectorlessServiceAndAnEmptySliceNamingItsSources(_ test: Name) throws {
        let rendering = try Self.shopWithPublicAPI()
        let service = try #require(rendering.object(on: test.cloud, "Service", test.namespace, test.name))
        #expect(service.body.at("spec", "selector") == nil)
        #expect(service.body.at("spec", "ports")?.yaml == test.servicePorts)
        let slice = try #require(rendering.object(on: test.cloud, "EndpointSlice", test.namespace, test.name))
        #expect(slice.apiVersion == "discovery.k8s.io/v1")
        #expect(slice.body.at("metadata", "labels", "kubernetes.io/service-name")?.stringValue == test.name)
        #expect(slice.body.at("metadata", "labels", "endpointslice.kubernetes.io/managed-by")?.stringValue == "mcloud.io")
        #expect(slice.body.at("metadata", "annotations", "mcloud.io/endpoints-from")?.stringValue == test.sources.joined(separator: ","))
        #expect(slice.body["addressType"]?.stringValue == "IPv4")
        #expect(slice.body["endpoints"]?.items.isEmpty == true)
        #expect(slice.body["ports"]?.yaml == test.slicePorts)
        // Apply fills the slice only after what it points at exists.
        let desired = try #require(DesiredResources.from(rendering).first { $0.address.rawValue == slice.address(cloud: test.cloud) })
        #expect(Set(test.sources.map(ResourceAddress.init)).isSubset(of: Set(desired.dependencies)), "\(desired.dependencies)")
    }

    /// A service with replicas in the dependent's cluster is reached by its own Service, and a database's primary
    /// from any cluster by the same name in the dependent's namespace, shared by every cell there.
    @Test func aConnectionWithinTheClusterGetsNothingAndASharedNameIsRenderedOnce() throws {
        let rendering = try Self.shopWithPublicAPI()
        #expect(rendering.object(on: "c1", "EndpointSlice", "shop-ru", "api") == nil)
        #expect(rendering.objects(on: "c1").filter { $0.kind == "Service" && $0.namespace == "shop-ru" && $0.name == "api" }.count == 1)
        // web@ru and api@ru both reach orders-db@ru from c1.
        #expect(rendering.objects(on: "c1").filter { $0.kind == "EndpointSlice" && $0.namespace == "shop-ru" && $0.name == "orders-db" }.count == 1)
    }

    /// The retail bank's `fx-rates` runs in ps-ala and sel-msk, which share the cluster set `examples` with the
    /// clusters of `payments-api`: it is exported where it runs, and nothing is rendered for it where it does not.
    @Test func aServiceReachedThroughAClusterSetIsExportedWhereItRuns() throws {
        let (model, plan) = try RenderFixtures.example("retail-bank")
        let rendering = Rendering(model: model, placement: Placement(plan))
        let exports = rendering.allObjects.filter { $0.object.kind == "ServiceExport" }.map { "\($0.cloud) \($0.object.namespace)/\($0.object.name)" }
        #expect(exports.contains("ps-ala retail-bank/fx-rates") && exports.contains("sel-msk retail-bank/fx-rates"), "\(exports)")
        #expect(rendering.allObjects.first { $0.object.kind == "ServiceExport" }?.object.apiVersion == "multicluster.x-k8s.io/v1alpha1")
        #expect(!rendering.allObjects.contains { $0.object.kind == "EndpointSlice" && $0.object.name == "fx-rates" })
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
