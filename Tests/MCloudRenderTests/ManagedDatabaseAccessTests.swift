import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider
@testable import MCloudRender
import Testing

/// A managed database whose cloud makes users through its API (Trove's MySQL) lists its clients in `spec.access`,
/// as a database VM does, and each client gets a connection Secret; one whose cloud makes none (Trove's PostgreSQL)
/// gets neither (docs/connectivity.md, "Managed databases").
@Suite struct ManagedDatabaseAccessTests {
    static func rendering(engine: String, version: String) throws -> Rendering {
        let model = try RenderFixtures.model([
            """
            apiVersion: mcloud/v1
            kind: Cloud
            metadata: { name: c1 }
            spec:
              vendor: vendor-c1
              api: openstack
              jurisdiction: [EU]
              region: c1
              offers: { kubernetes: true, vm: true, dbaas: [\(engine)], objectStorage: true }
              capacity: { vcpu: 100, memoryGiB: 400, storageGiB: 10000 }
              pricing: { currency: USD, vcpuHour: 0.01, memoryGiBHour: 0.001, storageGiBMonth: 0.1, objectStorageGiBMonth: 0.02, egressGiB: 0.05 }
              latencyMs: { eu: 10 }
              endpoints:
                kubernetes: { context: c1 }
            """,
            """
            apiVersion: mcloud/v1
            kind: Application
            metadata: { name: shop }
            spec:
              currency: USD
              audiences: [{ name: eu, jurisdiction: EU }]
            """,
            """
            apiVersion: mcloud/v1
            kind: Service
            metadata: { name: orders }
            spec:
              image: registry.example/orders:1
              scope: global
              replicas: 2
              resources: { cpu: 250m, memory: 256Mi }
              ports: [{ name: http, port: 8080 }]
              dependsOn: [{ name: orders-db }]
            """,
            """
            apiVersion: mcloud/v1
            kind: Database
            metadata: { name: orders-db }
            spec:
              engine: \(engine)
              version: "\(version)"
              scope: global
              size: { vcpu: 2, memoryGiB: 8, storageGiB: 100 }
            """,
        ])
        let placement = Placement(services: ["orders": [(cloud: "c1", count: 2)]], databases: ["orders-db": (primary: "c1", backup: nil)], cdns: [:])
        return Rendering(model: model, placement: placement)
    }

    @Test func troveMySQLListsItsClientsAndTheirSecretCarriesNoCA() throws {
        let rendering = try Self.rendering(engine: "mysql", version: "8.0")
        let database = try #require(rendering.allResources.first { $0.kind == ResourceKind.managedDatabase.rawValue })
        let access = try #require(ResourceBody(database.body.json).databaseAccess)
        #expect(access.names.isEmpty)
        #expect(access.clients == [DatabaseAccess.Client(service: "orders", user: "orders", database: "orders", cidrs: DatabaseReplication.privateRanges)])

        let secret = try #require(rendering.secrets.first)
        #expect(rendering.secrets.count == 1)
        #expect(secret.edge.tls == .unverified && secret.edge.engine == .mysql && secret.edge.host == "orders-db.shop.svc" && secret.edge.port == 3306)
        #expect(ClientAccess.dataKeys(secret.edge) == ["database", "host", "password", "port", "uri", "user"])

        let deployment = try #require(rendering.object(on: "c1", "Deployment", "shop", "orders"))
        let pod = try #require(deployment.body.at("spec", "template", "spec"))
        #expect(pod["volumes"] == nil, "no CA to mount")
        let env = pod["containers"]?.items.first?["env"]?.items ?? []
        #expect(env.compactMap { $0["name"]?.stringValue } == ["ORDERS_DB_USER", "ORDERS_DB_PASSWORD", "ORDERS_DB_DATABASE", "ORDERS_DB_URI"])
    }

    @Test func trovePostgreSQLListsNoClientsAndGivesNoSecret() throws {
        let rendering = try Self.rendering(engine: "postgresql", version: "16")
        let database = try #require(rendering.allResources.first { $0.kind == ResourceKind.managedDatabase.rawValue })
        #expect(ResourceBody(database.body.json).databaseAccess == nil)
        #expect(rendering.secrets.isEmpty)
    }
}
