@testable import MCloudRender
import Testing

/// The edges `dependsOn` implies, as network policies, on the hand-placed shop (RenderFixtures.shopPlacement).
@Suite struct NetworkPolicyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var cloud: String
        var namespace: String
        var workload: String
        var ingress: [String]
        var egress: [String]
        var testDescription: String { "\(workload) in \(namespace) on \(cloud)" }
    }

    static let dns = "any: UDP/53 TCP/53"

    @Test(arguments: [
        // Public: the Ingress port from anywhere. Its dependency api@ru runs here: by its pods; the database, in this
        // cloud, by a policy of its own (below).
        Case(cloud: "c1", namespace: "shop-ru", workload: "web", ingress: ["any: TCP/8080"],
             egress: [dns, "to shop-ru/api.ru: TCP/8080 TCP/9090"]),
        // api@ru does not run on c2, and neither does the database, which c2 cannot be wired to without egress
        // addresses: both by port, open to any address.
        Case(cloud: "c2", namespace: "shop-ru", workload: "web", ingress: ["any: TCP/8080"],
             egress: [dns, "any: TCP/5432 TCP/8080 TCP/9090"]),
        // web@ru here by its pods; web@ru's replica on c2 and the global reports (c2 only) reach it from outside.
        Case(cloud: "c1", namespace: "shop-ru", workload: "api", ingress: ["from shop-ru/web.ru: TCP/8080 TCP/9090", "any: TCP/8080 TCP/9090"],
             egress: [dns, "to shop/rates: TCP/8080"]),
        Case(cloud: "c3", namespace: "shop-eu", workload: "api", ingress: ["from shop-eu/web.eu: TCP/8080 TCP/9090", "any: TCP/8080 TCP/9090"],
             egress: [dns, "to shop/rates: TCP/8080"]),
        // Every dependent of rates has a replica where rates runs: no rule open to any address.
        Case(cloud: "c1", namespace: "shop", workload: "rates", ingress: ["from shop-ru/api.ru: TCP/8080"], egress: [dns, "any: TCP/6379"]),
        Case(cloud: "c3", namespace: "shop", workload: "rates", ingress: ["from shop-eu/api.eu: TCP/8080"], egress: [dns, "any: TCP/6379"]),
        // Global to perAudience: both audiences' api and orders-db, none of them on c2. Nothing may call it.
        Case(cloud: "c2", namespace: "shop", workload: "reports", ingress: [], egress: [dns, "any: TCP/5432 TCP/8080 TCP/9090"]),
    ])
    func eachCellsPolicyAllowsExactlyItsEdges(_ test: Case) throws {
        let rendering = Rendering(model: try RenderFixtures.shop(), placement: RenderFixtures.shopPlacement)
        let policy = try #require(rendering.object(on: test.cloud, "NetworkPolicy", test.namespace, "allow-\(test.workload)"))
        let spec = try #require(policy.body["spec"])
        #expect(spec.at("podSelector", "matchLabels", "app.kubernetes.io/name")?.stringValue == test.workload)
        #expect(spec["policyTypes"]?.items.compactMap(\.stringValue) == ["Ingress", "Egress"])
        #expect((spec["ingress"]?.items ?? []).map(Self.summary) == test.ingress)
        #expect((spec["egress"]?.items ?? []).map(Self.summary) == test.egress)
    }

    /// Each connection reached by address has an egress policy of its own, on the port its addresses listen on,
    /// open to any address until apply narrows it (docs/security.md, M7); the cell's own policy leaves it out.
    @Test(arguments: [
        ("shop", "allow-reports-to-orders-db-eu", "reports", "openstack.c3.DatabaseServer.shop-eu.orders-db.0", "TCP/5432"),
        ("shop", "allow-reports-to-api-ru", "reports",
         "kubernetes.c1.networking.k8s.io/v1.Ingress.shop-ru.api,kubernetes.c3.networking.k8s.io/v1.Ingress.shop-ru.api", "TCP/80"),
        ("shop-ru", "allow-web-to-orders-db", "web", "openstack.c1.ManagedDatabase.shop-ru.orders-db", "TCP/5432"),
    ])
    func aConnectionReachedByAddressHasAnEgressPolicyOfItsOwn(_ namespace: String, _ name: String, _ workload: String, _ sources: String, _ port: String) throws {
        let rendering = try ClusterObjectTests.shopWithPublicAPI()
        let policy = try #require(rendering.object(on: "c2", "NetworkPolicy", namespace, name))
        #expect(policy.body.at("metadata", "annotations", "mcloud.io/endpoints-from")?.stringValue == sources)
        #expect(policy.body.at("spec", "podSelector", "matchLabels", "app.kubernetes.io/name")?.stringValue == workload)
        #expect(policy.body.at("spec", "policyTypes")?.items.compactMap(\.stringValue) == ["Egress"])
        #expect((policy.body.at("spec", "egress")?.items ?? []).map(Self.summary) == ["any: \(port)"])
        let own = try #require(rendering.object(on: "c2", "NetworkPolicy", namespace, "allow-\(workload)"))
        #expect((own.body.at("spec", "egress")?.items ?? []).map(Self.summary) == [Self.dns])
    }

    @Test func everyNamespaceOfEveryClusterDeniesAllTrafficByDefault() throws {
        let rendering = Rendering(model: try RenderFixtures.shop(), placement: RenderFixtures.shopPlacement)
        for cluster in rendering.clusters {
            let namespaces = Set(cluster.objects.map(\.namespace))
            for namespace in namespaces {
                let policy = try #require(rendering.object(on: cluster.cloud, "NetworkPolicy", namespace, "default-deny"))
                #expect(policy.body.at("spec", "podSelector")?.fields.isEmpty == true)
                #expect(policy.body.at("spec", "policyTypes")?.items.compactMap(\.stringValue) == ["Ingress", "Egress"])
                #expect(policy.body.at("spec", "ingress") == nil && policy.body.at("spec", "egress") == nil)
            }
        }
    }

    /// `from shop-ru/web.ru: TCP/8080`: the peers (namespace/instance) or `any`, then the ports.
    static func summary(_ rule: ObjectNode) -> String {
        let peers: [String] = (rule["from"] ?? rule["to"])?.items.map { peer in
            let namespace = peer.at("namespaceSelector", "matchLabels", "kubernetes.io/metadata.name")?.stringValue ?? "?"
            let instance = peer.at("podSelector", "matchLabels", "app.kubernetes.io/instance")?.stringValue ?? "?"
            return "\(namespace)/\(instance)"
        } ?? []
        let ports: [String] = rule["ports"]?.items.map { port in
            "\(port["protocol"]?.stringValue ?? "?")/\(port["port"]?.intValue.map { String($0) } ?? "*")"
        } ?? []
        let direction = rule["to"] != nil ? "to " : rule["from"] != nil ? "from " : ""
        return (peers.isEmpty ? "any" : direction + peers.joined(separator: ", ")) + ": " + ports.joined(separator: " ")
    }
}
