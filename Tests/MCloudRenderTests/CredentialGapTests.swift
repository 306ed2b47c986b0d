import MCloudCore
@testable import MCloudRender
import Testing

/// The connections mcloud wires but gives no credentials of their own yet are said on the database's cell, never
/// silent: telemed's ClickHouse VM (reached from another cloud in plain text) and the retail bank's Trove databases.
@Suite struct CredentialGapTests {
    static func gaps(_ example: String) throws -> [String] {
        let (model, plan) = try RenderFixtures.example(example)
        return CredentialGap.gaps(Wiring(model: model, placement: Placement(plan)).connections).map { "\($0.cell): \($0.message)" }
    }

    @Test func aClickHouseVMsAndAManagedDatabasesClientsAreToldWhatTheyLack() throws {
        let gaps = try Self.gaps("telemed")
        #expect(gaps == [
            "analytics: its clients connect without TLS and without users of their own: mcloud makes them on ClickHouse VMs not yet (it does on PostgreSQL, Postgres Pro, Redis and MariaDB/MySQL VMs); analytics-ingest@sel-msk reaches it from another cloud",
            "ehr-db@ru: its clients get its address but no user, password or Secret: mcloud makes none on a managed database yet; give them credentials yourself",
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
}
