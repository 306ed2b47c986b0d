import MCloudCore
@testable import MCloudRender
import Testing

/// The connections mcloud wires but gives no credentials of their own yet are said on the database's cell, never
/// silent: telemed's managed PostgreSQL and the retail bank's Trove databases; telemed's ClickHouse VM makes users.
@Suite struct CredentialGapTests {
    static func gaps(_ example: String) throws -> [String] {
        let (model, plan) = try RenderFixtures.example(example)
        let apis = model.clouds.reduce(into: [String: Cloud.API]()) { $0[$1.name] = $1.api }
        return CredentialGap.gaps(Wiring(model: model, placement: Placement(plan)).connections, apis: apis).map { "\($0.cell): \($0.message)" }
    }

    @Test func aManagedDatabasesClientsAreToldWhatTheyLackAndAClickHouseVMsAreNot() throws {
        let gaps = try Self.gaps("telemed")
        #expect(gaps == [
            "ehr-db@ru: its clients get its address but no user, password or Secret: Trove's user API serves only its mysql datastore; "
                + "give them credentials yourself, or run it on VMs (hosting: vm), where mcloud makes them",
        ])
    }

    @Test func theRetailBanksManagedDatabasesAreNamedAndItsRedisVMsAreNot() throws {
        let gaps = try Self.gaps("retail-bank")
        #expect(gaps.map { String($0.prefix { $0 != ":" }) } == [
            "accounts-db@eu", "accounts-db@ru", "cards-db@eu", "cards-db@ru", "payments-db@eu", "payments-db@ru", "sessions-redis@ru",
        ])
        #expect(gaps.allSatisfy { $0.contains(": its clients get its address but no user, password or Secret") }, "\(gaps)")
        #expect(!gaps.contains { $0.hasPrefix("sessions-redis@eu:") || $0.hasPrefix("fx-cache:") }, "a Redis VM's clients get their own users: \(gaps)")
    }

    /// A VM's engine decides: one whose recipes make users leaves no gap, one whose recipes make none is named, with
    /// the dependent that reaches it from another cloud.
    @Test(arguments: [
        ("clickhouse", nil),
        ("postgresql", nil),
        ("mongodb", "events-db: its clients connect without TLS and without users of their own: mcloud makes them on MongoDB VMs not yet (it does on PostgreSQL, Postgres Pro, Redis, MariaDB/MySQL and ClickHouse VMs); ingest@b reaches it from another cloud"),
    ] as [(String, String?)])
    func aDatabaseVMIsAGapOnlyOnAnEngineWhoseRecipesMakeNoUsers(_ engine: String, _ expected: String?) {
        let database = Cell(workload: "events-db", kind: .database, audience: nil)
        let connection = Connection(
            dependent: .init(cell: Cell(workload: "ingest", kind: .service, audience: nil), cloud: "b", namespace: "events"),
            target: .database(database, engine: engine, port: nil), route: .databaseServer(cloud: "a", server: "events.events-db.0"),
            name: "events-db", crossesClouds: true, egressCIDRs: ["198.51.100.0/24"]
        )
        #expect(CredentialGap.gaps([connection], apis: ["a": .openstack, "b": .aws]).map { "\($0.cell): \($0.message)" } == (expected.map { [$0] } ?? []))
    }

    /// A managed database: what its clients lack depends on the cloud and engine. Trove's MySQL gets users but no
    /// verified TLS; Trove's other datastores and RDS get none.
    @Test(arguments: [
        (Cloud.API.openstack, "mysql", "orders-db: its clients get users of their own through Trove's API, but they cannot verify the server: Trove lets nobody give its MySQL a certificate, so it serves the one it made itself and they connect with ssl-mode=REQUIRED (encrypted, unverified); checkout@b reaches it from another cloud"),
        (.openstack, "postgresql", "orders-db: its clients get its address but no user, password or Secret: Trove's user API serves only its mysql datastore; give them credentials yourself, or run it on VMs (hosting: vm), where mcloud makes them; checkout@b reaches it from another cloud"),
        (.aws, "mysql", "orders-db: its clients get its address but no user, password or Secret: mcloud makes none on a managed database of this cloud yet; give them credentials yourself, or run it on VMs (hosting: vm), where mcloud makes them; checkout@b reaches it from another cloud"),
    ])
    func aManagedDatabasesGapDependsOnItsCloudAndEngine(_ api: Cloud.API, _ engine: String, _ expected: String) {
        let connection = Connection(
            dependent: .init(cell: Cell(workload: "checkout", kind: .service, audience: nil), cloud: "b", namespace: "shop"),
            target: .database(Cell(workload: "orders-db", kind: .database, audience: nil), engine: engine, port: 3306),
            route: .managedEndpoint(cloud: "a", database: "shop.orders-db"), name: "orders-db", crossesClouds: true, egressCIDRs: ["198.51.100.0/24"]
        )
        #expect(CredentialGap.gaps([connection], apis: ["a": api, "b": .aws]).map { "\($0.cell): \($0.message)" } == [expected])
    }
}

