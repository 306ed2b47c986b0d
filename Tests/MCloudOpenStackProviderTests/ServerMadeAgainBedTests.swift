import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStackProvider
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing

/// A database server made again on its volume (docs/databases.md, "A server made again on its volume"), as a new
/// dependent makes it (docs/connectivity.md, "A new dependent"): each Debian engine booted on a disk file, written to,
/// its server deleted and made again with a second client, booted on the same disk file. One server at a time: each
/// boots two VMs in turn, and a fresh root's run of this beside the other bed suites, all at once, exceeded 20 minutes
/// a test. Fails, never skips, without the beds (openstack.sh up, moto.sh start, container.sh start).
@Suite(.serialized, .timeLimit(.minutes(30))) struct ServerMadeAgainBedTests {
    /// A new dependent of a running PostgreSQL server (docs/connectivity.md, "A new dependent"): its user is in the
    /// server's user data, so the plan replaces the server rather than plan an update that would never reach it. As
    /// apply does, the server is deleted and made again with the new user data; the new VM (a container on the same
    /// disk file) finds the old one's data on its volume and keeps every row, and admits the new client with its
    /// derived password over verified TLS, and the first one still.
    @Test func aNewDependentMakesTheServerAgainOnItsVolumeKeepingItsRows() async throws {
        try await Self.makeAgain("postgresql") { server, password in
            let written = try await Self.psql(server, DatabaseAccessBedTests.clients[0], password, "CREATE TABLE t AS SELECT generate_series(1, 3) AS id")
            #expect(written.succeeded, "\(written.output)")
        } after: { server, password in
            let kept = try await Self.psql(server, DatabaseAccessBedTests.clients[0], password, "SELECT count(*) FROM t")
            #expect(kept.succeeded && kept.stdout == "3\n", "\(kept.output)")
            let added = try await Self.psql(server, DatabaseAccessBedTests.clients[1], password, "CREATE TABLE u (v text); INSERT INTO u VALUES ('x'); SELECT count(*) FROM u")
            #expect(added.succeeded && added.stdout.hasSuffix("1\n"), "\(added.output)")
        }
    }

    /// `sql` as `client` over TLS verified by the server's name, with the password `password` derives.
    static func psql(
        _ server: DatabaseAccessBedTests.Booted, _ client: DatabaseAccess.Client, _ password: (DatabaseAccess.Client) throws -> String, _ sql: String
    ) async throws -> Command {
        let connection = "host=\(DatabaseAccessBedTests.host) hostaddr=127.0.0.1 port=\(server.port) dbname=\(client.database) user=\(client.user) sslmode=verify-full sslrootcert=\(server.authority) channel_binding=disable"
        return try await Command.run("/usr/bin/psql", ["-X", "-At", "-v", "ON_ERROR_STOP=1", connection, "-c", sql], environment: ["PGPASSWORD": try password(client), "PGCONNECT_TIMEOUT": "10"])
    }

    /// The other engines made again on their volume the same way, checked by the VM's own administration: the rows
    /// (keys) written before are there, and the new dependent's user is made. (engine, write, count, the new user)
    @Test(arguments: [
        ("mysql", "mariadb -e 'CREATE DATABASE keep; CREATE TABLE keep.t (id INT); INSERT INTO keep.t VALUES (1), (2), (3)'",
         "mariadb -N -e 'SELECT count(*) FROM keep.t'", "mariadb -N -e \"SELECT count(DISTINCT user) FROM mysql.user WHERE user = 'ledger_eu'\""),
        ("redis", "REDISCLI_AUTH=$(cat /etc/mcloud/redis-admin) redis-cli -s /run/redis/redis-server.sock --user mcloud-admin MSET keep:1 1 keep:2 2 keep:3 3 >/dev/null",
         "REDISCLI_AUTH=$(cat /etc/mcloud/redis-admin) redis-cli -s /run/redis/redis-server.sock --user mcloud-admin --scan --pattern 'keep:*' | wc -l",
         "REDISCLI_AUTH=$(cat /etc/mcloud/redis-admin) redis-cli -s /run/redis/redis-server.sock --user mcloud-admin ACL USERS | grep -cx ledger_eu"),
        ("clickhouse",
         "c() { clickhouse-client --config-file /etc/mcloud/clickhouse-client.xml --host 127.0.0.1 --port \"$PORT\" -q \"$1\"; }; c 'CREATE TABLE default.keep (id UInt8) ENGINE = MergeTree ORDER BY id'; c 'INSERT INTO default.keep VALUES (1), (2), (3)'",
         "clickhouse-client --config-file /etc/mcloud/clickhouse-client.xml --host 127.0.0.1 --port \"$PORT\" -q 'SELECT count() FROM default.keep'",
         "grep -c '<ledger_eu>' /etc/clickhouse-server/users.d/70-mcloud.xml"),
    ])
    func theOtherEnginesKeepTheirDataWhenMadeAgainOnTheirVolume(_ engine: String, _ write: String, _ count: String, _ user: String) async throws {
        func shell(_ server: DatabaseAccessBedTests.Booted, _ command: String) async throws -> String {
            try await server.container.shell(server.instance, ". /etc/mcloud/database.conf; \(command)")
        }
        try await Self.makeAgain(engine) { server, _ in
            _ = try await shell(server, write)
        } after: { server, _ in
            let counted = try await shell(server, count)
            let users = try await shell(server, user)
            #expect(counted == "3\n" && users == "1\n", "\(engine): \(counted) rows (keys), \(users) users of the new dependent")
        }
    }

    /// Makes a server of `engine` with the first client, boots it on a disk file and runs `before`; then, as apply
    /// replaces it for the second client (the reason checked), deletes it, makes it again with both clients, boots
    /// that on the same disk file and runs `after`. `password` derives a client's password.
    static func makeAgain(
        _ engine: String, before: (DatabaseAccessBedTests.Booted, (DatabaseAccess.Client) throws -> String) async throws -> Void,
        after: (DatabaseAccessBedTests.Booted, (DatabaseAccess.Client) throws -> String) async throws -> Void
    ) async throws {
        let folder = NSTemporaryDirectory() + "mcloud-new-dependent-\(UUID().uuidString.prefix(8))"
        let (beds, identity) = try Beds.withAgeIdentity(seed: 9, folder: folder)
        let test = try #require(EngineSample.debian12.first { $0.engine == engine })
        let run = UUID().uuidString.prefix(8).lowercased()
        let bucket = "mcloud-new-dependent-\(run)"
        try await beds.s3.ensureBucket(.init(name: bucket, expireAfterDays: 7, noncurrentExpireAfterDays: 7))
        let server = "nd-\(run).payments-db.0"
        let address = ResourceAddress("openstack.bed.DatabaseServer.\(server)")
        let names = [DatabaseAccessBedTests.host, "\(DatabaseAccessBedTests.host).cluster.local", "localhost"]
        let volumeAddress = "openstack.bed.Volume.\(server)"
        let volume = try await beds.provider.create(beds.volume(volumeAddress, name: server))
        let first = beds.server(address, name: server, test: test, bucket: bucket, volume: volumeAddress, access: DatabaseAccess(cell: "payments-db@eu", names: names, clients: [DatabaseAccessBedTests.clients[0]]))
        let second = beds.server(address, name: server, test: test, bucket: bucket, volume: volumeAddress, access: DatabaseAccess(cell: "payments-db@eu", names: names, clients: DatabaseAccessBedTests.clients))
        let disk = "\(folder)/data.img"
        #expect(FileManager.default.createFile(atPath: disk, contents: nil))
        try FileHandle(forWritingAtPath: disk).map { handle in
            try handle.truncate(atOffset: 2 << 30)
            try handle.close()
        }
        let instances = ["nd-\(run)-a", "nd-\(run)-b"]
        var made: [(ObservedResource, DesiredResource)] = []
        func cleanUp() async {
            for instance in instances { await beds.container.destroy(instance) }
            for (observed, desired) in made { try? await beds.provider.delete(beds.recorded(observed, desired)) }
            try? await beds.provider.delete(beds.recorded(volume, beds.volume(volumeAddress, name: server)))
            try? await beds.s3.deleteBucket(bucket)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let password = { (client: DatabaseAccess.Client) throws -> String in
            try ClientCredential(root: SecretRoot(identity: identity), application: "nd-\(run)", cell: "payments-db@eu", service: client.service).password.value
        }
        /// Boots `instance` on the disk file with the user data Nova holds for `observed`.
        func boot(_ instance: String, _ observed: ObservedResource) async throws -> DatabaseAccessBedTests.Booted {
            try await beds.container.boot(
                instance, userData: try await beds.userData(ofServer: observed.providerID), options: ["--reach", "24566", "--publish", String(test.port), "--disk-file", disk]
            )
            try await beds.container.wait(instance)
            _ = try await beds.container.shell(instance, "mcloud-engine ready")
            try Data(try await beds.container.shell(instance, "cat /etc/mcloud/tls/ca.crt").utf8).write(to: URL(fileURLWithPath: "\(folder)/ca.crt"))
            return DatabaseAccessBedTests.Booted(port: try await beds.container.port(instance, test.port), folder: folder, passwords: [:], container: beds.container, instance: instance)
        }
        do {
            let created = try await beds.provider.create(first)
            made.append((created, first))
            try await before(try await boot(instances[0], created), password)
            #expect(beds.provider.replacementReasons(desired: second, current: created.attributes) == [
                "spec.access changed: its clients' users and its certificate live in the server's user data, which cannot change",
            ])
            await beds.container.destroy(instances[0])
            try await beds.provider.delete(beds.recorded(created, first))
            made.removeAll()
            let remade = try await beds.provider.create(second)
            made.append((remade, second))
            try await after(try await boot(instances[1], remade), password)
        } catch {
            await beds.container.printCloudInitOutput(instances)
            await cleanUp()
            throw error
        }
        await cleanUp()
    }
}
