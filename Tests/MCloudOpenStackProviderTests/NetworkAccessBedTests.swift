import Foundation
import MCloudCore
import MCloudTestSupport
import Testing

/// A database's allow-list tested by real packets: the PostgreSQL server the provider's user data makes boots in one
/// cloud of the network bed, at a floating address, and lets its client in only from the egress address of the
/// client's cloud, as the catalog's `egressCIDRs` say; the same client from a third cloud is refused by `pg_hba`
/// before any password, and nothing answers while the server's cloud is cut off. Fails, never skips, without the
/// beds (network.sh start, openstack.sh up, moto.sh start, container.sh start).
@Suite(.timeLimit(.minutes(20))) struct NetworkAccessBedTests {
    @Test func aDatabaseLetsItsClientInByItsCloudsEgressAddressAndNoOtherCloud() async throws {
        let network = try NetworkBed.load()
        let seed = UInt32.random(in: 0..<512)
        let clouds = try await network.addClouds(prefix: "acl\(seed)", count: 3, seed: seed)
        let (database, application, other) = (clouds[0], clouds[1], clouds[2])
        do {
            try await Self.check(network, database: database, application: application, other: other)
        } catch {
            await network.remove(clouds)
            throw error
        }
        await network.remove(clouds)
    }

    static func check(_ network: NetworkBed, database: NetworkBed.Cloud, application: NetworkBed.Cloud, other: NetworkBed.Cloud) async throws {
        let port = try #require(EngineSample.debian12.first { $0.engine == "postgresql" }).port
        let clients = [
            DatabaseAccess.Client(service: "payments-api@eu", user: "payments_api_eu", database: "payments_api_eu", cidrs: ["\(application.egress)/32"])
        ]
        let address = database.privateAddress(10), floating = database.publicAddress(5)
        try await DatabaseAccessBedTests.boot(
            "postgresql", verifier: "SCRAM-SHA-256$4096:", clients: clients, bootOptions: ["--network", database.name, "--address", address, "--public", floating]
        ) { server in
            func psql(from cloud: NetworkBed.Cloud) async throws -> Command {
                let connection = "host=\(DatabaseAccessBedTests.host) hostaddr=\(floating) port=\(port) dbname=payments_api_eu user=payments_api_eu sslmode=verify-full sslrootcert=\(server.authority) channel_binding=disable"
                return try await network.exec(
                    in: cloud.name, ["/usr/bin/psql", "-X", "-At", connection, "-c", "SELECT inet_client_addr()"],
                    environment: ["PGPASSWORD": try #require(server.passwords["payments-api@eu"]), "PGCONNECT_TIMEOUT": "5"]
                )
            }
            let allowed = try await psql(from: application)
            #expect(allowed.succeeded && allowed.stdout == "\(application.egress)\n", "the server must see the cloud's egress address: \(allowed.output)")
            let refused = try await psql(from: other)
            #expect(
                !refused.succeeded && refused.stderr.contains("no pg_hba.conf entry for host \"\(other.egress)\""),
                "another cloud's egress address must not be let in: \(refused.output)"
            )
            try await network.cut(database)
            let lost = try await psql(from: application)
            #expect(!lost.succeeded && lost.stderr.contains("timeout expired"), "a cut-off cloud must not answer: \(lost.output)")
            try await network.cut(database, false)
            let back = try await psql(from: application)
            #expect(back.succeeded, "\(back.output)")
        }
    }
}
