import MCloudCore
@testable import MCloudRender
import Testing

/// Every `dependsOn` edge as connections, per cluster where its dependent runs, on the hand-placed shop
/// (RenderFixtures.shopPlacement), and the edges that cannot be wired, each a plan error naming the edge and why.
@Suite struct WiringTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Changes to the shop: the clusters with egress addresses, and whether `api` is public.
        var egress: Set<String>
        var publicAPI: Bool
        var priceList: Set<String> = []
        /// The clusters in one Multi-Cluster Services cluster set.
        var clusterSet: Set<String> = []
        var errors: [String]
        var testDescription: String { name }
    }

    static let everyCluster: Set<String> = ["c1", "c2", "c3"]

    static func notExposed(_ dependent: String, _ target: String, in cloud: String) -> String {
        "\(dependent)@c2 -> \(target): api runs only in \(cloud) and nothing exposes it outside them: it is not public and none of them shares a cluster set with c2: set endpoints.kubernetes.clusterSet on c2 and one of them in the catalog if their clusters share Multi-Cluster Services, or expose.public: true on api (test.yaml:77:19) so that c2 reaches it through its Ingress"
    }

    static func noEgress(_ dependent: String, _ target: String, in cloud: String) -> String {
        "\(dependent)@c2 -> \(target): the database runs in \(cloud), another cloud, and c2 names no endpoints.kubernetes.egressCIDRs in its catalog entry (test.yaml:20:19), so the engine could admit nobody from this cluster: list the addresses the cluster's traffic leaves from there"
    }

    @Test(arguments: [
        Case(name: "every edge wired", egress: everyCluster, publicAPI: true, errors: []),
        Case(name: "a database in another cloud from a cluster with no egress addresses", egress: ["c1", "c3"], publicAPI: true, errors: [
            noEgress("reports", "orders-db@eu", in: "c3"), noEgress("reports", "orders-db@ru", in: "c1"), noEgress("web@ru", "orders-db@ru", in: "c1"),
        ]),
        Case(name: "a service nothing exposes outside the clusters it runs in", egress: everyCluster, publicAPI: false, errors: [
            notExposed("reports", "api@eu", in: "c3"), notExposed("reports", "api@ru", in: "c1"), notExposed("web@ru", "api@ru", in: "c1"),
        ]),
        Case(name: "a service reached through a cluster set only from clusters of the set", egress: everyCluster, publicAPI: false, clusterSet: ["c1", "c2"], errors: [
            notExposed("reports", "api@eu", in: "c3"),
        ]),
        // Regression: a price list (a what-if's catalog) failed the plan that was to note it and place only.
        Case(name: "a price list with no endpoints is left to the plan's own note", egress: ["c1", "c3"], publicAPI: false, priceList: ["c2"], errors: []),
    ])
    func anEdgeThatCannotBeWiredIsAnErrorNamingItAndWhy(_ test: Case) throws {
        var model = try RenderFixtures.shop()
        for index in model.clouds.indices {
            let name = model.clouds[index].name
            model.clouds[index].endpoints.kubernetesEgressCIDRs = test.egress.contains(name) ? ["192.0.2.\(index * 16)/28"] : []
            if test.clusterSet.contains(name) { model.clouds[index].endpoints.kubernetesClusterSet = "mesh" }
            if test.priceList.contains(name) { model.clouds[index].endpoints = Cloud.Endpoints() }
        }
        for index in model.services.indices where model.services[index].name == "api" {
            model.services[index].expose = test.publicAPI ? Service.Expose(isPublic: true, path: "/api") : nil
        }
        let wiring = Wiring(model: model, placement: RenderFixtures.shopPlacement)
        #expect(wiring.errors.map(\.description) == test.errors)
        // Every edge of a cluster to wire (a price list is none) is either a connection or an error, never both and never neither.
        let edges = wiring.connections.map(\.edge) + wiring.errors.map { "\($0.dependent) -> \($0.target.name)" }
        #expect(edges.sorted() == Self.everyEdge.filter { edge in !test.priceList.contains { edge.contains("@\($0) -> ") } })
    }

    /// Each cell's dependencies in each cluster where it runs (RenderFixtures.shop).
    static let everyEdge = [
        "api@eu@c3 -> orders-db@eu", "api@eu@c3 -> rates", "api@ru@c1 -> orders-db@ru", "api@ru@c1 -> rates",
        "rates@c1 -> rates-db", "rates@c3 -> rates-db",
        "reports@c2 -> api@eu", "reports@c2 -> api@ru", "reports@c2 -> orders-db@eu", "reports@c2 -> orders-db@ru",
        "web@eu@c3 -> api@eu", "web@eu@c3 -> orders-db@eu",
        "web@ru@c1 -> api@ru", "web@ru@c1 -> orders-db@ru", "web@ru@c2 -> api@ru", "web@ru@c2 -> orders-db@ru",
    ]

    @Test func eachConnectionSaysWhereItGoesByWhichNameAndFromWhichAddresses() throws {
        var model = try RenderFixtures.shop()
        for index in model.clouds.indices { model.clouds[index].endpoints.kubernetesEgressCIDRs = ["192.0.2.\(index * 16)/28"] }
        for index in model.services.indices where model.services[index].name == "api" {
            model.services[index].expose = Service.Expose(isPublic: true, path: "/api")
        }
        let wiring = Wiring(model: model, placement: RenderFixtures.shopPlacement)
        #expect(wiring.errors.isEmpty)
        #expect(wiring.connections(of: "web@ru").map(Self.summary) == [
            "web@ru@c1 -> api@ru as api.shop-ru.svc: cluster service",
            "web@ru@c1 -> orders-db@ru as orders-db.shop-ru.svc: managed openstack.c1.ManagedDatabase.shop-ru.orders-db, postgresql 5432",
            "web@ru@c2 -> api@ru as api.shop-ru.svc: ingress c1 8080, crosses clouds from 192.0.2.16/28",
            "web@ru@c2 -> orders-db@ru as orders-db.shop-ru.svc: managed openstack.c1.ManagedDatabase.shop-ru.orders-db, postgresql 5432, crosses clouds from 192.0.2.16/28",
        ])
        // A global cell reaches each audience's cell under a name of its own.
        #expect(wiring.connections(of: "reports").map(Self.summary) == [
            "reports@c2 -> api@eu as api-eu.shop.svc: ingress c3 8080, crosses clouds from 192.0.2.16/28",
            "reports@c2 -> api@ru as api-ru.shop.svc: ingress c1 8080, crosses clouds from 192.0.2.16/28",
            "reports@c2 -> orders-db@eu as orders-db-eu.shop.svc: server openstack.c3.DatabaseServer.shop-eu.orders-db.0, postgresql 5432, crosses clouds from 192.0.2.16/28",
            "reports@c2 -> orders-db@ru as orders-db-ru.shop.svc: managed openstack.c1.ManagedDatabase.shop-ru.orders-db, postgresql 5432, crosses clouds from 192.0.2.16/28",
        ])
        // perAudience to global: the global cell's own Service, in its namespace.
        #expect(wiring.connections(of: "api@eu").map(Self.summary) == [
            "api@eu@c3 -> orders-db@eu as orders-db.shop-eu.svc: server openstack.c3.DatabaseServer.shop-eu.orders-db.0, postgresql 5432",
            "api@eu@c3 -> rates as rates.shop.svc: cluster service",
        ])
    }

    /// `web@ru@c1 -> api@ru as api.shop-ru.svc: cluster service`, then the engine and port, whether it crosses clouds, from where.
    static func summary(_ connection: Connection) -> String {
        var parts: [String]
        switch connection.route {
        case .clusterService: parts = ["cluster service"]
        case .ingress(let clouds, let port): parts = ["ingress \(clouds.joined(separator: " ")) \(port)"]
        case .clusterSet(let set, let clouds): parts = ["cluster set \(set) \(clouds.joined(separator: " "))"]
        case .databaseServer(_, let server): parts = ["server \(server)"]
        case .managedEndpoint(_, let database): parts = ["managed \(database)"]
        }
        if case .database(_, let engine, let port) = connection.target { parts.append("\(engine) \(port.map(String.init) ?? "?")") }
        if connection.crossesClouds { parts.append("crosses clouds from \(connection.egressCIDRs.joined(separator: " "))") }
        return "\(connection.edge) as \(connection.name): \(parts.joined(separator: ", "))"
    }
}
