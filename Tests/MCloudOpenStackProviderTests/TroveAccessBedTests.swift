import Foundation
import MCloudAWS
import MCloudCore
import MCloudOpenStack
import MCloudOpenStackProvider
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing

/// A managed MySQL on the OpenStack bed's Trove (docs/connectivity.md, "Managed databases"): the provider makes each
/// client's database and user through Trove's API with the password its connection Secret derives, admits the
/// clients' CIDRs, reads the access back, makes again a user removed outside mcloud, and deletes the user of a client
/// that is gone. The bed's Trove runs its fake guest, which answers the user API as the MySQL guest does without
/// running MySQL, so what is checked is what Trove's API shows (users, hosts, databases, CIDRs). Fails, never skips,
/// without the bed.
@Suite(.serialized) struct TroveAccessBedTests {
    static let orders = DatabaseAccess.Client(service: "orders@eu", user: "orders_eu", database: "orders_eu", cidrs: ["198.51.100.0/24"])
    /// Trove's guest answers in seconds on the bed; a loaded box gets minutes.
    static let poller = Poller(backoff: Backoff(initial: 0.3, factor: 1.5, cap: 2), timeout: 300)
    static let reports = DatabaseAccess.Client(service: "reports", user: "reports", database: "reports", cidrs: ["10.1.0.0/16"])

    @Test func aTroveMySQLGetsItsClientsUsersAndLosesAGoneClients() async throws {
        let openstack = try TestBedEnvironment.load(
            directory: ProcessInfo.processInfo.environment["MCLOUD_OPENSTACK_TESTBED_DIR"] ?? "/tmp/mcloud-testbed/openstack", start: "scripts/testbed/openstack.sh up"
        )
        let keyFile = NSTemporaryDirectory() + "trove-access-\(UUID().uuidString.prefix(8)).key"
        try Data(try AgeIdentity(secretKey: [UInt8](repeating: 41, count: 32)).keyFile.utf8).write(to: URL(fileURLWithPath: keyFile))
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let connect: @Sendable () throws(OpenStackError) -> OpenStackSession = { () throws(OpenStackError) -> OpenStackSession in
            try OpenStackSession(cloud: try CloudsYAML.load(cloud: openstack["MCLOUD_TEST_OS_CLOUD"], environment: ["OS_CLIENT_CONFIG_FILE": openstack["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"]]))
        }
        let provider = OpenStackResourceProvider(
            cloud: "bed", environment: ["MCLOUD_AGE_KEY_FILE": keyFile], poller: Self.poller, connect: connect,
            objectStorage: { () throws(AWSError) -> S3Client in throw .configuration("unused") }
        )
        let trove = TroveClient(session: try connect(), poller: Self.poller)
        let application = "ta-\(UUID().uuidString.prefix(8).lowercased())"
        let address: ResourceAddress = "openstack.bed.ManagedDatabase.shop.orders-db"

        func desired(_ clients: [DatabaseAccess.Client]) -> DesiredResource {
            let access = ResourceBody.DatabaseServerField.access(DatabaseAccess(cell: "orders-db@eu", names: [], clients: clients))
            let body: JSONValue = .object([
                ("apiVersion", .string("infrastructure.mcloud.io/v1")), ("kind", .string("ManagedDatabase")),
                ("metadata", .object([
                    ("name", .string("shop.orders-db")), ("address", .string(address.rawValue)), ("cloud", .string("bed")), ("provider", .string("openstack")),
                    ("labels", .object([("app.kubernetes.io/part-of", .string(application))])),
                ])),
                ("spec", .object([
                    ("engine", .string(openstack["MCLOUD_TEST_OS_DATASTORE"])), ("version", .string(openstack["MCLOUD_TEST_OS_DATASTORE_VERSION"])),
                    ("size", .object([("vcpu", .int(1)), ("memoryGiB", .number(0.5)), ("storageGiB", .int(1))])), (access.key, access.value),
                ])),
            ])
            return DesiredResource(address: address, provider: "openstack", cloud: "bed", type: "ManagedDatabase", body: body, dependencies: [])
        }
        func recorded(_ observed: ObservedResource) -> ResourceState {
            ResourceState(address: address, provider: "openstack", cloud: "bed", providerID: observed.providerID, attributes: Dictionary(uniqueKeysWithValues: observed.attributes.objectPairs))
        }

        let both = desired([Self.orders, Self.reports])
        #expect(provider.problems(desired: both).isEmpty)
        let created = try await provider.create(both)
        var state = recorded(created)
        do {
            let users = try await trove.users(created.providerID)
            #expect(Set(users.map { $0.key }) == ["orders_eu@%", "reports@%"])
            #expect(users.first { $0.name == "orders_eu" }?.databases == ["orders_eu"])
            #expect(users.first { $0.name == "reports" }?.databases == ["reports"])
            #expect(Set(try await trove.databases(created.providerID)) == ["orders_eu", "reports"])
            #expect(try await trove.instance(created.providerID).allowedCIDRs.sorted() == ["10.1.0.0/16", "198.51.100.0/24"])

            // Read back as it was asked for: the refresh shows no change.
            let refreshed = try await provider.refresh(application: application, desired: [both], recorded: [state])
            let observedAccess = try #require(refreshed.first { $0.address == address }).attributes.value(at: ["spec", "access"])
            #expect(observedAccess == both.body.value(at: ["spec", "access"]))

            // A user removed outside mcloud is missing from the refresh, and the next update makes it again.
            try await trove.deleteUser(created.providerID, DatabaseUser(name: "reports", databases: []))
            let drifted = try await provider.refresh(application: application, desired: [both], recorded: [state])
            let clients = try #require(drifted.first { $0.address == address }).attributes.value(at: ["spec", "access", "clients"])?.arrayItems ?? []
            #expect(clients.compactMap { $0["user"]?.stringValue } == ["orders_eu"])
            state = recorded(try await provider.update(both, recorded: state))
            #expect(Set(try await trove.users(created.providerID).map { $0.key }) == ["orders_eu@%", "reports@%"])

            // The fake guest stops reporting in about 80 s after the instance is made, and Trove then reads it ACTIVE
            // with operating status ERROR, as it would a guest that is down; an access change must not wait for the
            // guest's health (a fresh root's slower run waited 300 s for HEALTHY here and failed).
            var status = ""
            for _ in 0..<90 where status != "ERROR" {
                status = try await trove.instance(created.providerID).operatingStatus ?? ""
                if status != "ERROR" { try await Task.sleep(for: .seconds(2)) }
            }
            #expect(status == "ERROR", "the fake guest still reports in: the case below is not the one it is for")

            // A client gone: its user is deleted, its data kept; the admitted addresses shrink to the rest's.
            let one = desired([Self.orders])
            state = recorded(try await provider.update(one, recorded: state))
            #expect(try await trove.users(created.providerID).map { $0.key } == ["orders_eu@%"])
            #expect(Set(try await trove.databases(created.providerID)) == ["orders_eu", "reports"])
            #expect(try await trove.instance(created.providerID).allowedCIDRs == ["198.51.100.0/24"])
        } catch {
            try? await provider.delete(state)
            throw error
        }
        try await provider.delete(state)
    }
}
