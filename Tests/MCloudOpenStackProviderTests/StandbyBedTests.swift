import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStackProvider
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing

/// A primary and its standby booted for real from the OpenStack provider's user data (docs/databases.md,
/// "Standbys"). PostgreSQL: the standby seeds itself from the primary over verified TLS as the replicator, rows
/// written on the primary reach it, `pg_stat_replication` shows it streaming over TLS in the synchronous quorum, and
/// with the standby stopped a commit has not returned after 6 s, while the next returns once it is back. Redis: a key
/// written on the primary reaches the replica. The bed's servers have no port, so the provider finds no address for
/// the primary: the standby reaches it by its server name, which the test points at a forwarder to the primary's
/// published port, as a cloud's DNS or the provider's address would. Fails, never skips, without the beds
/// (openstack.sh up, moto.sh start, container.sh start).
@Suite(.timeLimit(.minutes(30))) struct StandbyBedTests {
    /// Where the standby's container reaches the primary: an address of its own loopback, forwarded to the host port
    /// the primary's engine is published on.
    static let primaryAddress = "10.254.0.1"

    struct Pair {
        var primary: String
        var standby: String
        var container: ContainerBed
        /// The primary's DR bucket on the moto bed, and its server name there.
        var s3: S3Client
        var bucket: String
        var server: String

        /// What the primary's report says once it has run (as its cron job does every minute).
        func report() async throws -> ReplicationStatus? {
            _ = try await container.shell(primary, ReplicationReport.script)
            let bytes = try await s3.getObject(bucket: bucket, key: DatabaseUserData.replicationKey(server: server))
            return ReplicationStatus(json: String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func aPostgreSQLStandbyStreamsOverTLSAndACommitWaitsForIt() async throws {
        try await Self.boot("postgresql") { pair in
            let port = 5433
            let psql = "runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -p \(port)"
            let replication = "\(psql) -c \"SELECT r.application_name, r.state, r.sync_state, s.ssl, s.version FROM pg_stat_replication r JOIN pg_stat_ssl s USING (pid)\""
            #expect(try await Self.poll(pair.container, pair.primary, replication, until: "standby_1|streaming|quorum|t|TLSv1.3\n"))
            _ = try await pair.container.shell(pair.primary, "\(psql) -c 'CREATE TABLE replicated (id int)' -c 'INSERT INTO replicated SELECT generate_series(1, 100)'")
            let standbyPSQL = "runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -p \(port + 1)"
            let count = "\(standbyPSQL) -c 'SELECT count(*) FROM replicated'"
            #expect(try await Self.poll(pair.container, pair.standby, count, until: "100\n"))
            #expect(try await pair.container.shell(pair.standby, "\(standbyPSQL) -c 'SELECT pg_is_in_recovery()'") == "t\n")
            // The primary reports its standby to the DR bucket, streaming in the quorum; stopped, the standby is missing.
            let following = try #require(try await pair.report())
            #expect(following.standbys.map { "\($0.name) \($0.state) \($0.sync)" } == ["standby_1 streaming quorum"])
            #expect(following.problems(now: Int(Date().timeIntervalSince1970)).isEmpty)
            // Stopped, the standby acknowledges nothing: the commit is still waiting when the client gives up after 6 s
            // (a command left running in the container would hold its exec open), and the next returns once it is back.
            _ = try await pair.container.shell(pair.standby, "systemctl stop postgresql@15-main")
            #expect(try await pair.report()?.problems(now: Int(Date().timeIntervalSince1970)) == ["0 of 1 standbys of \(pair.server) follow it"])
            let waiting = try await pair.container.exec(pair.primary, ["bash", "-c", "timeout 6 \(psql) -c 'INSERT INTO replicated VALUES (101)'"])
            #expect(waiting.exitCode == 124, "the commit returned without a standby: \(waiting.output)")
            _ = try await pair.container.shell(pair.standby, "systemctl start postgresql@15-main")
            _ = try await pair.container.shell(pair.primary, "timeout 60 \(psql) -c 'INSERT INTO replicated VALUES (102)'")
            // The abandoned commit was made on the primary all the same, and reaches the standby with the next.
            #expect(try await Self.poll(pair.container, pair.standby, count, until: "102\n"))
        }
    }

    @Test func aRedisReplicaReceivesWhatThePrimaryWrites() async throws {
        try await Self.boot("redis") { pair in
            let cli = "REDISCLI_AUTH=$(cat /etc/mcloud/redis-admin) redis-cli -s /run/redis/redis-server.sock --user mcloud-admin"
            #expect(try await Self.poll(pair.container, pair.standby, "\(cli) INFO replication | tr -d '\\r' | grep -x master_link_status:up || true", until: "master_link_status:up\n"))
            #expect(try await pair.container.shell(pair.primary, "\(cli) SET replicated yes") == "OK\n")
            #expect(try await Self.poll(pair.container, pair.standby, "\(cli) GET replicated", until: "yes\n"))
            let role = try await pair.container.shell(pair.primary, "\(cli) INFO replication | tr -d '\\r' | grep -E '^(role|connected_slaves):'")
            #expect(role == "role:master\nconnected_slaves:1\n")
            let report = try #require(try await pair.report())
            #expect(report.standbys.map { "\($0.state) \($0.sync)" } == ["online async"], "\(report)")
            #expect(report.problems(now: Int(Date().timeIntervalSince1970)).isEmpty, "\(report)")
        }
    }

    /// `command` in `instance` until it prints `expected`, for up to 60 s.
    static func poll(_ container: ContainerBed, _ instance: String, _ command: String, until expected: String) async throws -> Bool {
        for _ in 0..<60 {
            if (try? await container.shell(instance, command)) == expected { return true }
            try await Task.sleep(for: .seconds(1))
        }
        return false
    }

    /// Creates a primary and its standby of `engine` through the provider, the standby's port one above the sample's,
    /// boots both, checks the secrets went where they belong, runs `check` and removes everything however it ends.
    static func boot(_ engine: String, _ check: (Pair) async throws -> Void) async throws {
        let (beds, identity) = try Beds.withAgeIdentity(seed: 11, folder: NSTemporaryDirectory() + "mcloud-standby-bed-\(UUID().uuidString.prefix(8))")
        let test = try #require(EngineSample.debian12.first { $0.engine == engine })
        let run = UUID().uuidString.prefix(8).lowercased()
        let bucket = "mcloud-standby-\(run)"
        try await beds.s3.ensureBucket(.init(name: bucket, expireAfterDays: 7, noncurrentExpireAfterDays: 7))
        let application = "sb-\(run)"
        let names = ["\(application).payments-db.0", "\(application).payments-db.1"]
        let addresses = names.map { "openstack.bed.DatabaseServer.\($0)" }
        let access = DatabaseAccess(cell: "payments-db@eu", names: ["payments-db.\(application).svc"], clients: [])
        // The forwarder delivers the standby's connections from 127.0.0.1 on the primary's side.
        let roles: [DatabaseReplication] = [
            .primary(standbys: ["standby_1"], cidrs: ["127.0.0.0/8"]), .standby(name: "standby_1", primary: names[0], port: test.port),
        ]
        var created: [(ObservedResource, DesiredResource)] = []
        let instances = names.indices.map { "sb-\(engine.prefix(5))-\(run)-\($0)" }
        func cleanUp() async {
            for instance in instances { await beds.container.destroy(instance) }
            for (observed, desired) in created.reversed() { try? await beds.provider.delete(beds.recorded(observed, desired)) }
            try? await beds.s3.deleteBucket(bucket)
        }
        do {
            var userData: [String] = []
            for (copy, name) in names.enumerated() {
                let volume = beds.volume("openstack.bed.Volume.\(name)", name: name)
                created.append((try await beds.provider.create(volume), volume))
                var body = ResourceBody(beds.server(ResourceAddress(addresses[copy]), name: name, test: test, bucket: bucket, volume: volume.address.rawValue, access: access).body)
                    .settingSpec(["replication"], ResourceBody.DatabaseServerField.replication(roles[copy]).value)
                if copy > 0 {
                    body = body.settingSpec(["role"], .string("standby")).settingSpec(["port"], .int(test.port + 1)).settingSpec(["backup"], nil)
                        .settingSpec(["replicaOf"], .string(addresses[0]))
                }
                let desired = DesiredResource(
                    address: ResourceAddress(addresses[copy]), provider: "openstack", cloud: "bed", type: "DatabaseServer", body: body.document,
                    dependencies: [volume.address] + (copy > 0 ? [ResourceAddress(addresses[0])] : [])
                )
                #expect(beds.provider.problems(desired: desired).isEmpty)
                let observed = try await beds.provider.create(desired)
                created.append((observed, desired))
                userData.append(try await beds.userData(ofServer: observed.providerID))
            }
            let password = try ReplicationCredential(root: SecretRoot(identity: identity), application: application, cell: access.cell).password.value
            #expect(!userData[0].contains(password), "the replication password is in the primary's user data")
            #expect(userData[1].contains(password), "the standby has no login to its primary")
            try await beds.container.boot(instances[0], userData: userData[0], options: ["--reach", "24566", "--publish", String(test.port)])
            let primaryPort = try await beds.container.port(instances[0], test.port)
            try await beds.container.boot(
                instances[1], userData: userData[1], options: ["--reach", "24566", "--reach", "\(Self.primaryAddress):\(test.port)=\(primaryPort)"]
            )
            _ = try await beds.container.shell(instances[1], "echo '\(Self.primaryAddress) \(names[0])' >>/etc/hosts")
            for instance in instances { try await beds.container.wait(instance) }
            #expect(try await beds.container.shell(instances[0], "cat /etc/cron.d/mcloud-replication") == "* * * * * root \(ReplicationReport.script) >>/var/log/mcloud-replication.log 2>&1\n")
            try await check(Pair(primary: instances[0], standby: instances[1], container: beds.container, s3: beds.s3, bucket: bucket, server: names[0]))
        } catch {
            for instance in instances {
                print("---- \(instance)'s cloud-init output:\n" + ((try? await beds.container.run(["logs", instance, "cloud-init"]).stdout.suffix(3000)) ?? ""))
            }
            await cleanUp()
            throw error
        }
        await cleanUp()
    }
}

extension Beds {
    /// Beds whose provider derives the servers' secrets from an age identity of `seed`, in a key file in `folder`.
    static func withAgeIdentity(seed: UInt8, folder: String) throws -> (beds: Beds, identity: AgeIdentity) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let identity = try AgeIdentity(secretKey: [UInt8](repeating: seed, count: 32))
        try Data("\(identity.encoded)\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/age.key"))
        return (try Beds(extra: ["MCLOUD_AGE_KEY_FILE": "\(folder)/age.key"]), identity)
    }
}
