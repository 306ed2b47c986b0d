import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStackProvider
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing

/// A PostgreSQL server with clients, booted for real: the OpenStack provider derives its TLS files and users from an
/// age key file in its environment into the user data, the container bed boots that user data, and a client on the
/// host (another network namespace, as a pod in another cloud is) connects through the published port with libpq:
/// over TLS verified against the application's CA by host name, with the password derived for its edge, it writes
/// and reads a row; without TLS, or with a wrong password, it is refused. The client's CIDRs are every address, as
/// the bed's forwarder decides the source the server sees; `PostgreSQLAccessTests` holds the CIDRs. Fails, never
/// skips, without the beds (openstack.sh up, moto.sh start, container.sh start).
@Suite(.timeLimit(.minutes(20))) struct DatabaseAccessBedTests {
    static let host = "payments-db.retail-bank-eu.svc"

    @Test func aBootedPostgreSQLAcceptsOnlyVerifiedTLSWithTheDerivedPassword() async throws {
        let folder = NSTemporaryDirectory() + "mcloud-access-bed-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let identity = try AgeIdentity(secretKey: [UInt8](repeating: 9, count: 32))
        try Data("\(identity.encoded)\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/age.key"))
        let beds = try Beds(extra: ["MCLOUD_AGE_KEY_FILE": "\(folder)/age.key"])
        let test = try #require(EngineSample.debian12.first { $0.engine == "postgresql" })
        let run = UUID().uuidString.prefix(8).lowercased()
        let bucket = "mcloud-vm-tls-\(run)"
        try await beds.s3.ensureBucket(.init(name: bucket, expireAfterDays: 7, noncurrentExpireAfterDays: 7))
        let server = "tls-\(run).payments-db.0"
        let access = DatabaseAccess(
            cell: "payments-db@eu", names: [Self.host, "\(Self.host).cluster.local"],
            clients: [DatabaseAccess.Client(service: "payments-api@eu", user: "payments_api_eu", database: "payments_api_eu", cidrs: ["0.0.0.0/0", "::/0"])]
        )
        let volumeAddress = "openstack.bed.Volume.\(server)"
        let volume = try await beds.provider.create(beds.volume(volumeAddress, name: server))
        let desired = beds.server("openstack.bed.DatabaseServer.\(server)", name: server, test: test, bucket: bucket, volume: volumeAddress, access: access)
        #expect(beds.provider.problems(desired: desired).isEmpty)
        let created = try await beds.provider.create(desired)
        let instance = "vm-tls-\(run)"
        func cleanUp() async throws {
            await beds.container.destroy(instance)
            try await beds.provider.delete(beds.recorded(created, desired))
            try await beds.provider.delete(beds.recorded(volume, beds.volume(volumeAddress, name: server)))
            try await beds.s3.deleteBucket(bucket)
        }
        do {
            let userData = try await beds.userData(ofServer: created.providerID)
            // The application is what the body's labels name (`Beds.metadata`: the first part of the name).
            let password = try ClientCredential(
                root: SecretRoot(identity: identity), application: String(server.split(separator: ".")[0]), cell: "payments-db@eu", service: "payments-api@eu"
            ).password.value
            #expect(!userData.contains(password))
            #expect(userData.contains("SCRAM-SHA-256$4096:"))
            try await beds.container.boot(instance, userData: userData, options: ["--reach", "24566", "--publish", String(test.port)])
            try await beds.container.wait(instance)
            _ = try await beds.container.shell(instance, "mcloud-engine ready")
            let authority = try await beds.container.shell(instance, "cat /etc/mcloud/tls/ca.crt")
            try Data(authority.utf8).write(to: URL(fileURLWithPath: "\(folder)/ca.crt"))
            let port = try await beds.container.port(instance, test.port)
            func psql(_ password: String, sslmode: String) async throws -> Command {
                let connection = "host=\(Self.host) hostaddr=127.0.0.1 port=\(port) dbname=payments_api_eu user=payments_api_eu sslmode=\(sslmode) sslrootcert=\(folder)/ca.crt channel_binding=disable"
                return try await Command.run(
                    "/usr/bin/psql",
                    ["-X", "-At", "-v", "ON_ERROR_STOP=1", connection, "-c", "CREATE TABLE IF NOT EXISTS t (v text)", "-c", "INSERT INTO t VALUES ('x')", "-c", "SELECT count(*) FROM t"],
                    environment: ["PGPASSWORD": password, "PGCONNECT_TIMEOUT": "10"]
                )
            }
            let good = try await psql(password, sslmode: "verify-full")
            #expect(good.succeeded && good.stdout.hasSuffix("INSERT 0 1\n1\n"), "\(good.output)")
            let plain = try await psql(password, sslmode: "disable")
            #expect(!plain.succeeded && plain.stderr.contains("pg_hba.conf rejects connection"), "\(plain.output)")
            let wrong = try await psql(password + "x", sslmode: "verify-full")
            #expect(!wrong.succeeded && wrong.stderr.contains("password authentication failed"), "\(wrong.output)")
        } catch {
            print("---- \(instance)'s cloud-init output:\n" + ((try? await beds.container.run(["logs", instance, "cloud-init"]).stdout.suffix(3000)) ?? ""))
            try await cleanUp()
            throw error
        }
        try await cleanUp()
    }
}
