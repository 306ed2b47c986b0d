import Foundation
import MCloudCore
import MCloudOpenStack
@testable import MCloudOpenStackProvider
import MCloudProvider
import MCloudSecrets
import Testing

/// A Trove instance's `spec.access` (docs/connectivity.md, "Managed databases"): what plan refuses, and what the
/// provider reads back from Trove's users and `allowed_cidrs`.
@Suite struct TroveAccessTests {
    static let client = DatabaseAccess.Client(service: "orders@eu", user: "orders_eu", database: "orders_eu", cidrs: ["10.1.0.0/16", "198.51.100.0/24"])
    static let other = DatabaseAccess.Client(service: "reports", user: "reports", database: "reports", cidrs: ["10.1.0.0/16"])
    static let access = DatabaseAccess(cell: "orders-db@eu", names: [], clients: [client, other])

    static func body(engine: String, _ access: DatabaseAccess) -> ResourceBody {
        let field = ResourceBody.DatabaseServerField.access(access)
        return ResourceBody(.object([("kind", .string("ManagedDatabase")), ("spec", .object([("engine", .string(engine)), (field.key, field.value)]))]))
    }

    static func keyFile() throws -> String {
        let path = NSTemporaryDirectory() + "trove-access-\(UUID().uuidString).key"
        try Data(try AgeIdentity(secretKey: [UInt8](repeating: 9, count: 32)).keyFile.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aMySQLInstanceWithTheIdentityHasNoProblem() throws {
        let key = try Self.keyFile()
        defer { try? FileManager.default.removeItem(atPath: key) }
        #expect(TroveAccess.problems(Self.body(engine: "mysql", Self.access), environment: ["MCLOUD_AGE_KEY_FILE": key]).isEmpty)
    }

    @Test func anotherDatastoreCannotBeGivenUsers() {
        #expect(TroveAccess.problems(Self.body(engine: "postgresql", Self.access), environment: [:]) == [
            "spec.access: Trove's user API serves only its mysql datastore, not postgresql: its clients cannot be given users",
        ])
    }

    @Test func withoutTheIdentityThePasswordsCannotBeDerived() {
        let problems = TroveAccess.problems(Self.body(engine: "mysql", Self.access), environment: ["MCLOUD_AGE_KEY_FILE": "/nonexistent/age.key"])
        #expect(problems.count == 1 && problems[0].contains("/nonexistent/age.key"), "\(problems)")
    }

    @Test func aUserNameLongerThanTrovesSchemaAllowsIsAProblem() throws {
        let key = try Self.keyFile()
        defer { try? FileManager.default.removeItem(atPath: key) }
        let long = DatabaseAccess.Client(service: "order-history-exporter", user: "order_history_exporter", database: "order_history_exporter", cidrs: ["10.0.0.0/8"])
        #expect(TroveAccess.problems(Self.body(engine: "mysql", DatabaseAccess(cell: "orders-db", names: [], clients: [long])), environment: ["MCLOUD_AGE_KEY_FILE": key]) == [
            "spec.access: \"order_history_exporter\" of order-history-exporter is longer than the 16 characters Trove allows a user's name",
        ])
    }

    @Test func anIPv6NetworkCannotBeAdmittedByTrove() throws {
        let key = try Self.keyFile()
        defer { try? FileManager.default.removeItem(atPath: key) }
        let client = DatabaseAccess.Client(service: "orders", user: "orders", database: "orders", cidrs: ["10.0.0.0/8", "2001:db8::/32"])
        #expect(TroveAccess.problems(Self.body(engine: "mysql", DatabaseAccess(cell: "orders-db", names: [], clients: [client])), environment: ["MCLOUD_AGE_KEY_FILE": key]).contains(
            "spec.access: 2001:db8::/32 of orders is an IPv6 network, and Trove admits IPv4 networks only (allowed_cidrs)"
        ))
    }

    /// (users Trove lists, its allowed CIDRs, the clients read back)
    @Test(arguments: [
        ([DatabaseUser(name: "orders_eu", databases: ["orders_eu"]), DatabaseUser(name: "reports", databases: ["reports"])], ["10.1.0.0/16", "198.51.100.0/24"], [client, other]),
        // A user missing, or without its database, is a client not there: the diff shows it and apply makes it.
        ([DatabaseUser(name: "reports", databases: ["reports"])], ["10.1.0.0/16", "198.51.100.0/24"], [other]),
        ([DatabaseUser(name: "orders_eu", databases: []), DatabaseUser(name: "reports", databases: ["reports"])], ["10.1.0.0/16", "198.51.100.0/24"], [other]),
        // A user of another host is not the one mcloud made.
        ([DatabaseUser(name: "orders_eu", host: "10.1.%", databases: ["orders_eu"]), DatabaseUser(name: "reports", databases: ["reports"])], ["10.1.0.0/16", "198.51.100.0/24"], [other]),
        // An address the instance no longer admits is missing from its client.
        (
            [DatabaseUser(name: "orders_eu", databases: ["orders_eu"]), DatabaseUser(name: "reports", databases: ["reports"])], ["10.1.0.0/16"],
            [DatabaseAccess.Client(service: "orders@eu", user: "orders_eu", database: "orders_eu", cidrs: ["10.1.0.0/16"]), other]
        ),
    ] as [([DatabaseUser], [String], [DatabaseAccess.Client])])
    func theAccessReadBackIsWhatTroveHas(_ users: [DatabaseUser], _ allowed: [String], _ expected: [DatabaseAccess.Client]) {
        #expect(TroveAccess.observed(Self.access, users: users, allowedCIDRs: allowed)?.clients == expected)
    }

    /// Regression: removing a Trove instance's last client (no `spec.access`, so plan asks for no identity) read the
    /// operator's identity all the same and failed at apply without it.
    @Test func noClientsNeedNoIdentityAndAClientDoes() throws {
        let access = TroveAccess(environment: ["MCLOUD_AGE_KEY_FILE": "/nonexistent/age.key"])
        #expect(try access.passwords([], cell: "orders-db@eu", application: "shop").isEmpty)
        #expect(throws: OpenStackError.self) { try access.passwords([Self.client], cell: "orders-db@eu", application: "shop") }
    }

    @Test func aPasswordInATroveErrorIsScrubbed() {
        let fault = APIFault(operation: "create users", status: 400, kind: "badRequest", message: "'Secret123' is too long", requestID: nil)
        let scrubbed = OpenStackError.api(fault).scrubbing(["Secret123"])
        #expect(scrubbed.description == "create users: HTTP 400 badRequest: '(sensitive value)' is too long")
    }
}
