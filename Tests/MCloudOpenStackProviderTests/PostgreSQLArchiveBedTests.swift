import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStackProvider
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing

/// PostgreSQL's continuous encrypted archive, for real: the OpenStack provider makes a primary whose DR bucket is on
/// moto behind its TLS front, the container bed boots the user data it sent, and the primary archives with
/// pgBackRest. Under a write load of a row a second the primary is killed (SIGKILL to every PostgreSQL process, no
/// shutdown checkpoint, no last push); a fresh server restores the newest point the archive holds, and the test
/// counts the rows lost and the RPO from the commit times (at most 60 s); another restores to a moment between two
/// known rows and must hold exactly the rows up to it. Before that, `pgbackrest verify` finds the WAL whole, and a
/// segment moved out of the bucket shows as a gap in the status object. Every object under the archive's prefix is scanned for
/// plaintext, and a wrong pass cannot read or restore it. Fails, never skips, without the beds (openstack.sh up,
/// moto.sh start with its TLS front, container.sh start with pgbackrest in its mirror).
@Suite(.serialized, .timeLimit(.minutes(30))) struct PostgreSQLArchiveBedTests {
    static let psql = "runuser -u postgres -- psql -X -Atq -p 5433 -v ON_ERROR_STOP=1"
    /// Text every row holds, which no object in the bucket may show.
    static let marker = "archive-row-marker"

    @Test("a killed primary's archive restores with RPO <= 60 s, PITR holds exactly the rows up to its target, no object is plaintext")
    func archiveRestoresTheLatestPointAndAMomentAndIsCiphertext() async throws {
        let folder = NSTemporaryDirectory() + "mcloud-archive-bed-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let identity = try AgeIdentity(secretKey: [UInt8](repeating: 35, count: 32))
        try Data("\(identity.encoded)\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/age.key"))
        let moto = try TestBedEnvironment.load(directory: ProcessInfo.processInfo.environment["MCLOUD_TESTBED_MOTO_DIR"] ?? "/tmp/mcloud-testbed/moto", start: "scripts/testbed/moto.sh start")
        let endpoint = moto["MCLOUD_TEST_MOTO_TLS_URL"], authorityFile = moto["MCLOUD_TEST_MOTO_CA"]
        #expect(endpoint.hasPrefix("https://localhost:"), "the moto bed has no TLS front: \(endpoint)")
        let beds = try Beds(extra: ["MCLOUD_AGE_KEY_FILE": "\(folder)/age.key", "AWS_CA_BUNDLE": authorityFile])
        let test = try #require(EngineSample.debian12.first { $0.engine == "postgresql" })
        let recipe = try #require(EngineCatalog.recipe(engine: "postgresql", version: "15", family: .debian12))
        let run = UUID().uuidString.prefix(8).lowercased()
        let application = "arc-\(run)", bucket = "mcloud-archive-\(run)"
        let server = "\(application).ledger.0"
        let tlsPort = String(endpoint.split(separator: ":").last ?? "")
        let made = try await beds.makePrimary(server, test: test, bucket: bucket, endpoint: endpoint)
        let created = made.server.observed
        let primary = "arc-\(run)-a", latest = "arc-\(run)-b", moment = "arc-\(run)-c"
        func cleanUp() async throws {
            try await beds.remove(made, containers: [primary, latest, moment])
            try? FileManager.default.removeItem(atPath: folder)
        }
        do {
            // The pass the VM must hold, derived here as any operator machine with the key file would.
            let authority = try String(contentsOfFile: authorityFile, encoding: .utf8)
            let keys = beds.moto.backupKeys
            let leg = DatabaseVM.Bucket(
                name: bucket, region: "us-east-1", endpoint: endpoint, secrets: [("AWS_ACCESS_KEY_ID", keys.keyID), ("AWS_SECRET_ACCESS_KEY", keys.secret)]
            )
            let repository = try PostgreSQLArchive.Repository(
                root: SecretRoot(identity: identity), application: application, server: server, bucket: leg, certificateAuthority: authority
            )
            let userData = try await beds.userData(ofServer: created.providerID)
            #expect(userData.contains("MCLOUD_ARCHIVE='\(repository.path)'") && userData.contains("repo1-cipher-pass=\(repository.cipherPass)"))
            #expect(!created.attributes.serialized(pretty: false).contains(repository.cipherPass), "the pass is in the provider's attributes")

            try await beds.container.boot(primary, userData: userData, options: ["--reach", tlsPort])
            try await beds.container.wait(primary)
            let modes = try await beds.container.shell(primary, "stat -c '%U:%G %a' \(PostgreSQLArchive.configurationPath); ls /etc/mcloud/archive")
            #expect(modes.hasPrefix("root:postgres 640\n") && !modes.contains("pgbackrest.conf"), "\(modes)")

            // pgbackrest verify finds the WAL whole; with one segment taken out of the bucket it shows the gap, which
            // the status object carries to `mcloud backups` and plan; put back, the archive is whole again.
            let bucketShell = "set -a; . /etc/mcloud/database.conf; . /etc/mcloud/backup.env; set +a; aws --endpoint-url \"$MCLOUD_BACKUP_ENDPOINT\""
            func verified() async throws -> ArchiveStatus {
                _ = try await beds.container.shell(primary, "mcloud-archive verify")
                let bytes = try #require(try await beds.s3.objectIfExists(bucket: bucket, key: DatabaseUserData.statusKey(server: server)))
                return try #require(ArchiveStatus(json: String(decoding: bytes, as: UTF8.self)))
            }
            for _ in 1...3 { _ = try await beds.container.shell(primary, "\(Self.psql) -c 'CHECKPOINT' -c 'SELECT 1 FROM pg_switch_wal()'") }
            let whole = try await verified()
            #expect(whole.verification?.ranges.isEmpty == false && whole.problems(now: Int(Date().timeIntervalSince1970)).isEmpty && whole.baseBackups.count == 1, "\(whole)")
            let segments = try await beds.s3.listObjects(bucket: bucket, prefix: "\(repository.path)/archive/").filter { $0.hasSuffix(".gz") || $0.range(of: #"/[0-9A-F]{24}-[0-9a-f]{40}"#, options: .regularExpression) != nil }.sorted()
            #expect(segments.count >= 3, "\(segments)")
            let taken = segments[segments.count - 2]
            _ = try await beds.container.shell(primary, "\(bucketShell) s3 mv --only-show-errors s3://\(bucket)/\(taken) s3://\(bucket)/\(taken).aside")
            let gapped = try await verified()
            #expect(gapped.verification?.gaps.count == 1 && gapped.problems(now: Int(Date().timeIntervalSince1970)).first?.contains("misses WAL after") == true, "\(gapped)")
            _ = try await beds.container.shell(primary, "\(bucketShell) s3 mv --only-show-errors s3://\(bucket)/\(taken).aside s3://\(bucket)/\(taken)")
            #expect(try await verified().problems(now: Int(Date().timeIntervalSince1970)).isEmpty)

            // A row a second, each with its commit time as the primary's clock gave it.
            _ = try await beds.container.shell(primary, "\(Self.psql) -c \"CREATE TABLE ticks (id int PRIMARY KEY, note text, at timestamptz NOT NULL)\"")
            var load = WriteLoad()
            for id in 1...75 {
                let answer = try await beds.container.shell(
                    primary, "\(Self.psql) -c \"INSERT INTO ticks VALUES (\(id), '\(Self.marker) \(id)', clock_timestamp()) RETURNING extract(epoch FROM at)\""
                )
                try load.acknowledge(id, answer: answer)
                if id == 60 { _ = try await beds.container.shell(primary, "mcloud-archive status") }
                try await Task.sleep(for: .seconds(1))
            }
            // The status object states the newest archived point.
            let statusBytes = try #require(try await beds.s3.objectIfExists(bucket: bucket, key: DatabaseUserData.statusKey(server: server)))
            let status = String(decoding: statusBytes, as: UTF8.self)
            #expect(status.contains(#""archivedAt": "20"#) && status.contains(#""repository": "\#(repository.path)""#) && status.contains(#""error": null"#), "\(status)")

            // Killed: every PostgreSQL process at once, so nothing is flushed or pushed on the way down.
            _ = try await beds.container.shell(primary, "systemctl kill -s KILL \(recipe.service) && systemctl stop cron")
            try await Task.sleep(for: .seconds(2))

            // No object under the archive's prefix holds a plaintext byte of the rows, a dump, a manifest or WAL.
            let objects = try await beds.s3.listObjects(bucket: bucket, prefix: "\(repository.path)/")
            #expect(objects.count >= 4, "\(objects)")
            var hits: [String] = []
            for key in objects {
                let bytes = try await beds.s3.getObject(bucket: bucket, key: key)
                let data = Data(bytes)
                let markers = [Self.marker, "PGDMP", "[backup", "pg_control", "db-system-id", "[db]"].filter { data.range(of: Data($0.utf8)) != nil }
                if bytes.starts(with: [0x1F, 0x8B]) || bytes.starts(with: [0x10, 0xD1]) || !markers.isEmpty || !bytes.starts(with: Array("Salted__".utf8)) {
                    hits.append("\(key): \(markers) first bytes \(bytes.prefix(8))")
                }
            }
            #expect(hits.isEmpty, "\(hits.count) of \(objects.count) objects are not ciphertext: \(hits.prefix(5))")

            // Two fresh servers: the newest point, and the moment between rows 20 and 21, a drill's (archiving off).
            let target = BackupStatus.text(load.secondAfter(row: 20))
            func restoring(_ point: DatabaseVM.RecoveryPoint) -> String {
                DatabaseUserData.render(DatabaseVM(
                    address: "openstack.bed.DatabaseServer.\(server)-restore", server: "\(server)-restore", recipe: recipe, port: test.port, disks: ["/dev/vdb"],
                    recoveryPoint: point
                ))
            }
            let newest = DatabaseVM.RecoveryPoint(bucket: leg, object: repository.path, archive: repository)
            let pitr = DatabaseVM.RecoveryPoint(bucket: leg, object: repository.path, archive: repository, targetTime: target, drill: true)
            async let bootLatest: Void = beds.container.boot(latest, userData: restoring(newest), options: ["--reach", tlsPort])
            async let bootMoment: Void = beds.container.boot(moment, userData: restoring(pitr), options: ["--reach", tlsPort])
            _ = try await (bootLatest, bootMoment)
            async let waitLatest: Void = beds.container.wait(latest)
            async let waitMoment: Void = beds.container.wait(moment)
            _ = try await (waitLatest, waitMoment)

            let restored = try await beds.container.shell(latest, "\(Self.psql) -F ' ' -c \"SELECT count(*), max(id), extract(epoch FROM max(at)) FROM ticks\"")
            try load.expectRestored(restored, within: 60, label: "archive bed")

            let exact = try await beds.container.shell(moment, "\(Self.psql) -c \"SELECT string_agg(id::text, ',' ORDER BY id) FROM ticks\"; \(Self.psql) -c 'SHOW archive_mode'")
            #expect(exact == (1...20).map(String.init).joined(separator: ",") + "\noff\n", "restored to \(target): \(exact)")

            // The right pass reads the archive; a wrong one (the environment wins over the file) neither reads nor restores it.
            func pgbackrest(_ environment: String) -> String {
                "runuser -u postgres -- env \(environment) pgbackrest --config=\(PostgreSQLArchive.restoreConfigurationPath) --stanza=\(PostgreSQLArchive.stanza)"
            }
            #expect(try await beds.container.exec(moment, ["bash", "-c", "\(pgbackrest("LC_ALL=C")) info"]).succeeded)
            let wrong = pgbackrest("PGBACKREST_REPO1_CIPHER_PASS=not-the-pass")
            #expect(!(try await beds.container.exec(moment, ["bash", "-c", "\(wrong) info --output=json | grep -q '\"status\":{\"code\":0'"]).succeeded))
            let refused = try await beds.container.exec(moment, ["bash", "-c", "install -d -o postgres -m 700 /tmp/wrong && \(wrong) restore --pg1-path=/tmp/wrong"])
            #expect(!refused.succeeded, "a wrong pass restored: \(refused.output)")
        } catch {
            await beds.container.printCloudInitOutput([primary, latest, moment], last: 4000)
            try await cleanUp()
            throw error
        }
        try await cleanUp()
    }
}
