import Foundation
import MCloudCore
import MCloudSecrets
import MCloudTestSupport
import Testing
@testable import MCloudDatabaseEngines

/// PostgreSQL's pgBackRest archive as the user data writes it: the configuration (a golden), which buckets and
/// engines get one, the pass kept to root-only files, and the restore's settings.
struct PostgreSQLArchiveTests {
    static let pass = "PassPassPassPassPassPassPassPass1"
    static let recipe = EngineCatalog.recipe(engine: "postgresql", version: "15", family: .debian12)

    static func bucket(endpoint: String? = "https://localhost:24599") -> DatabaseVM.Bucket {
        DatabaseVM.Bucket(name: "mcloud-ledger-dr", region: "us-east-1", endpoint: endpoint, secrets: [("AWS_ACCESS_KEY_ID", "AKIDLEG"), ("AWS_SECRET_ACCESS_KEY", "leg/secret")])
    }

    static func repository(endpoint: String? = "https://localhost:24599", authority: String? = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n") -> PostgreSQLArchive.Repository {
        PostgreSQLArchive.Repository(bucket: bucket(endpoint: endpoint), certificateAuthority: authority, server: "bank.ledger.0", generation: 1, cipherPass: pass)
    }

    static func vm() throws -> DatabaseVM {
        var vm = DatabaseVM(
            address: "openstack.dc-a.DatabaseServer.bank.ledger.0", server: "bank.ledger.0", recipe: try #require(recipe), port: 5433, disks: ["/dev/vdb"],
            backup: DatabaseVM.Backup(schedule: "0 3 * * *", retentionDays: 14, bucket: bucket())
        )
        vm.archive = repository()
        return vm
    }

    @Test func theConfigurationForAnEndpointWithItsOwnCAIsTheGolden() {
        let text = PostgreSQLArchive.configuration(Self.repository(), dataDirectory: "/var/lib/postgresql/15/main", port: 5433)
        #expect(text == """
            # Written by mcloud: pgBackRest's repository in the DR bucket (docs/dr.md). Holds the cipher pass: root:postgres 0640.
            [global]
            repo1-type=s3
            repo1-s3-bucket=mcloud-ledger-dr
            repo1-s3-endpoint=localhost
            repo1-storage-port=24599
            repo1-s3-uri-style=path
            repo1-s3-region=us-east-1
            repo1-s3-key=AKIDLEG
            repo1-s3-key-secret=leg/secret
            repo1-path=/bank.ledger.0/g1
            repo1-cipher-type=aes-256-cbc
            repo1-cipher-pass=\(Self.pass)
            repo1-bundle=y
            repo1-retention-full=2
            process-max=2
            start-fast=y
            compress-type=gz
            log-level-console=warn
            log-level-file=info

            [mcloud]
            pg1-path=/var/lib/postgresql/15/main
            pg1-port=5433
            pg1-socket-path=/var/run/postgresql

            """)
    }

    struct EndpointCase: Sendable, CustomStringConvertible {
        var endpoint: String?
        var lines: [String]
        var description: String { endpoint ?? "AWS" }
    }

    @Test(arguments: [
        EndpointCase(endpoint: nil, lines: ["repo1-s3-endpoint=s3.us-east-1.amazonaws.com", "repo1-storage-port=443", "repo1-s3-uri-style=host"]),
        EndpointCase(endpoint: "https://hb.example.net", lines: ["repo1-s3-endpoint=hb.example.net", "repo1-storage-port=443", "repo1-s3-uri-style=path"]),
        EndpointCase(endpoint: "https://s3.example.net:8443/", lines: ["repo1-s3-endpoint=s3.example.net", "repo1-storage-port=8443", "repo1-s3-uri-style=path"]),
    ])
    func theEndpointIsSplitIntoHostPortAndStyle(_ test: EndpointCase) {
        let text = PostgreSQLArchive.configuration(Self.repository(endpoint: test.endpoint, authority: nil), dataDirectory: "/d", port: 5432)
        for line in test.lines { #expect(text.contains(line + "\n"), "\(line)") }
    }

    @Test(arguments: [("https://localhost:24599", true), ("HTTPS://s3.example.net", true), ("http://127.0.0.1:24566", false)])
    func onlyABucketReachedOverTLSCanHoldAnArchive(_ endpoint: String, _ archives: Bool) {
        #expect(PostgreSQLArchive.canArchive(to: Self.bucket(endpoint: endpoint)) == archives)
        #expect(PostgreSQLArchive.canArchive(to: Self.bucket(endpoint: nil)))
        var uploadOnly = Self.bucket(endpoint: endpoint)
        uploadOnly.writeOnly = true
        #expect(!PostgreSQLArchive.canArchive(to: uploadOnly), "keys that may only upload cannot run pgBackRest")
    }

    @Test func onlyPostgreSQLArchivesAndThePassIsDerivedPerServerBucketAndGeneration() throws {
        #expect(EngineCatalog.recipes.filter(PostgreSQLArchive.supports).allSatisfy { $0.engine == .postgresql })
        #expect(!EngineCatalog.recipes.filter { $0.engine == .postgrespro }.contains(where: PostgreSQLArchive.supports))
        let root = SecretRoot(identity: try AgeIdentity(secretKey: [UInt8](repeating: 35, count: 32)))
        func pass(_ server: String, _ bucket: String, _ generation: UInt32) throws -> String {
            try PostgreSQLArchive.Repository(root: root, application: "bank", server: server, generation: generation, bucket: Self.bucket(endpoint: bucket), certificateAuthority: nil).cipherPass
        }
        let first = try pass("bank.ledger.0", "https://a", 1)
        #expect(try pass("bank.ledger.0", "https://a", 1) == first)
        #expect(try pass("bank.ledger.0", "https://a", 2) != first)
        #expect(try pass("bank.ledger.1", "https://a", 1) != first)
        #expect(PostgreSQLArchive.purpose(application: "bank", server: "s", bucket: "b", generation: 3).description == "archiveCipher of dr/b for bank/s, generation 3")
    }

    @Test func thePassIsOnlyInTheRootOnlyStagedConfiguration() throws {
        let vm = try Self.vm()
        let files = DatabaseUserData.files(vm)
        let holding = files.filter { $0.content.contains(Self.pass) }
        #expect(holding.map(\.path) == ["/etc/mcloud/archive/pgbackrest.conf"] && holding.allSatisfy { $0.permissions == "0600" })
        #expect(!String(describing: try #require(vm.archive)).contains(Self.pass))
        let settings = DatabaseUserData.settings(vm)
        for line in ["MCLOUD_ARCHIVE='bank.ledger.0/g1'", "MCLOUD_DATA='/var/lib/postgresql/15/main'", "MCLOUD_PACKAGES='postgresql-15 awscli pgbackrest jq'"] {
            #expect(settings.contains(line + "\n"), "\(line)")
        }
        #expect(!settings.contains("AWS_CA_BUNDLE"))
        // The archive replaces the dump: the backup job hands over before it dumps anything.
        let handOver = try #require(DatabaseUserData.backup.range(of: "exec mcloud-archive backup"))
        let dump = try #require(DatabaseUserData.backup.range(of: "mcloud-engine dump"))
        #expect(handOver.upperBound < dump.lowerBound)
    }

    @Test func aServerWithoutAnArchiveWritesNoneOfIt() throws {
        var vm = try Self.vm()
        vm.archive = nil
        #expect(!DatabaseUserData.files(vm).contains { $0.path.contains("archive") })
        #expect(!DatabaseUserData.settings(vm).contains("MCLOUD_ARCHIVE") && !DatabaseUserData.settings(vm).contains("pgbackrest"))
    }

    /// The endpoint's private CA joins the VM's system store through cloud-init's `ca_certs` (pgBackRest and awscli
    /// read that store), once even when the recovery point's bucket has the same; a public endpoint adds none.
    @Test func aPrivateEndpointsCAJoinsTheSystemStoreOnce() throws {
        var vm = try Self.vm()
        vm.recoveryPoint = DatabaseVM.RecoveryPoint(bucket: Self.bucket(), object: "bank.ledger.0/g1", archive: Self.repository())
        let document = DatabaseUserData.render(vm)
        let trusted = "ca_certs:\n  trusted:\n    - \"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n\"\nruncmd:"
        #expect(document.contains(trusted), "\(document.suffix(400))")
        #expect(!PostgreSQLArchive.configuration(Self.repository(), dataDirectory: "/d", port: 5432).contains("ca-file"))
        vm.archive = Self.repository(authority: nil)
        vm.recoveryPoint = nil
        #expect(!DatabaseUserData.render(vm).contains("ca_certs"))
    }

    struct RestoreCase: Sendable, CustomStringConvertible {
        var target: String?
        var drill: Bool
        var present: [String]
        var absent: [String]
        var description: String { "\(target ?? "latest")\(drill ? " drill" : "")" }
    }

    @Test(arguments: [
        RestoreCase(target: nil, drill: false, present: ["MCLOUD_RESTORE_ARCHIVE='bank.ledger.0/g1'"], absent: ["MCLOUD_RESTORE_TARGET", "MCLOUD_RESTORE_DRILL"]),
        RestoreCase(target: "2026-12-05T22:27:00Z", drill: true, present: ["MCLOUD_RESTORE_TARGET='2026-12-05 22:27:00+00'", "MCLOUD_RESTORE_DRILL='1'"], absent: []),
    ])
    func aRestoreFromTheArchiveReadsItsOwnConfigurationAndTarget(_ test: RestoreCase) throws {
        var vm = try Self.vm()
        vm.backup = nil
        vm.archive = nil
        vm.recoveryPoint = DatabaseVM.RecoveryPoint(bucket: Self.bucket(), object: "bank.ledger.0/g1", archive: Self.repository(), targetTime: test.target, drill: test.drill)
        let settings = DatabaseUserData.settings(vm)
        for line in test.present { #expect(settings.contains(line + "\n"), "\(line)") }
        for name in test.absent { #expect(!settings.contains(name)) }
        #expect(PostgreSQLArchive.authorities(vm) == [try #require(Self.repository().certificateAuthority)])
        let holding = DatabaseUserData.files(vm).filter { $0.content.contains(Self.pass) }
        #expect(holding.map(\.path) == ["/etc/mcloud/archive/restore.conf"] && holding.allSatisfy { $0.permissions == "0600" })
        #expect(PostgreSQLArchive.archiveScript.contains(#"if [ -n "${MCLOUD_RESTORE_DRILL:-}" ]; then options+=(--archive-mode=off); fi"#))
        // A restored primary's ssl = on would keep the server down until secure installs this server's certificate.
        let restore = try #require(PostgreSQLArchive.archiveScript.range(of: #"runuser -u postgres -- pgbackrest "${options[@]}""#))
        let off = try #require(PostgreSQLArchive.archiveScript.range(of: #"echo "ssl = 'off'" >>"$MCLOUD_DATA/postgresql.auto.conf""#))
        let start = try #require(PostgreSQLArchive.archiveScript.range(of: #"systemctl start "$MCLOUD_SERVICE""#))
        #expect(restore.upperBound < off.lowerBound && off.upperBound < start.lowerBound)
    }

    @Test func bashAndShellcheckAcceptTheArchiveScript() async throws {
        let problems = try await bashLint(PostgreSQLArchive.archiveScript)
        #expect(problems == nil, "\(problems ?? "")")
    }

    @Test(arguments: [
        ("bank.ledger.0/g1", "bank.ledger.0", UInt32(1)), ("a-b.c/g42", "a-b.c", UInt32(42)),
    ])
    func aRepositoryPathNamesItsServerAndGeneration(_ path: String, _ server: String, _ generation: UInt32) throws {
        let named = try #require(PostgreSQLArchive.repository(named: path))
        #expect(named.server == server && named.generation == generation)
    }

    /// The path comes from a status object anyone with the bucket's keys could write, and goes into user data.
    @Test(arguments: ["bank.ledger.0/20261205T220000Z.sql.gz", "bank.ledger.0/g0", "bank.ledger.0/g", "Bank/g1", "a/b/g1", "bank;x/g1", "bank/g1 ", "/g1", "bank/g99999999999"])
    func anythingElseIsNotARepository(_ path: String) {
        #expect(PostgreSQLArchive.repository(named: path) == nil)
    }

    struct ProblemCase: Sendable, CustomStringConvertible {
        var engine: String
        var endpoint: String?
        var identity: Bool
        var problem: Bool
        var description: String { "\(engine) \(endpoint ?? "AWS")\(identity ? " write-only" : "")" }
    }

    /// Without the age identity a server that would archive is refused at plan time, not halfway through apply.
    @Test(arguments: [
        ProblemCase(engine: "postgresql", endpoint: "https://s3.example.net", identity: false, problem: true),
        ProblemCase(engine: "postgresql", endpoint: nil, identity: false, problem: true),
        ProblemCase(engine: "postgresql", endpoint: "http://127.0.0.1:24566", identity: false, problem: false),
        ProblemCase(engine: "postgresql", endpoint: nil, identity: true, problem: false),
        ProblemCase(engine: "postgrespro", endpoint: "https://s3.example.net", identity: false, problem: false),
        ProblemCase(engine: "redis", endpoint: "https://s3.example.net", identity: false, problem: false),
    ])
    func aServerThatWouldArchiveNeedsTheAgeIdentityAtPlanTime(_ test: ProblemCase) throws {
        let location = BucketLocation(
            cloud: "dc-b", bucket: "bank-dr", region: "us-east-1", endpoint: test.endpoint,
            identity: test.identity ? BucketIdentity(address: "aws.dc-b.BackupIdentity.bank-dr", user: "bank-dr") : nil
        )
        let backup = BackupSettings(schedule: "0 3 * * *", retentionDays: 7, location: location)
        let missing = PostgreSQLArchive.problems(engine: test.engine, backup: backup, environment: ["MCLOUD_AGE_KEY_FILE": "/nonexistent/age.key"])
        #expect(missing.count == (test.problem ? 1 : 0), "\(missing)")
        #expect(missing.allSatisfy { $0.hasPrefix("its archive in the DR bucket bank-dr is encrypted with a pass derived from the operator's age identity") })
        #expect(PostgreSQLArchive.problems(engine: test.engine, backup: nil, environment: [:]).isEmpty)
    }

    /// The provider's way to a recovery point's archive: a repository path gives that server's archive and pass, a
    /// dump's key none.
    @Test func aRecoveryPointNamingARepositoryRestoresThatServersArchive() throws {
        let folder = NSTemporaryDirectory() + "mcloud-archive-spec-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let identity = try AgeIdentity(secretKey: [UInt8](repeating: 35, count: 32))
        try Data("\(identity.encoded)\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/age.key"))
        let environment = ["MCLOUD_AGE_KEY_FILE": "\(folder)/age.key"]
        let recipe = try #require(Self.recipe)
        let location = BucketLocation(cloud: "dc-b", bucket: "mcloud-ledger-dr", region: "us-east-1", endpoint: "https://localhost:24599")
        func spec(_ object: String) -> DatabaseServerSpec {
            DatabaseServerSpec(
                engine: "postgresql", version: "15", port: 5433, image: nil, defaultFamily: "debian-12", backup: nil,
                restore: RecoveryPoint(location: location, object: object, takenAt: "2026-12-05T22:30:00Z", targetTime: "2026-12-05T22:27:00Z", drill: true)
            )
        }
        let restored = try #require(try spec("bank.ledger.0/g2").restoreArchive(environment: environment, application: "bank", recipe: recipe, bucket: Self.bucket(), certificateAuthority: nil))
        #expect(restored.path == "bank.ledger.0/g2")
        let expected = try PostgreSQLArchive.Repository(root: SecretRoot(identity: identity), application: "bank", server: "bank.ledger.0", generation: 2, bucket: Self.bucket(), certificateAuthority: nil)
        #expect(restored.cipherPass == expected.cipherPass)
        #expect(try spec("bank.ledger.0/20261205T220000Z.sql.gz").restoreArchive(environment: environment, application: "bank", recipe: recipe, bucket: Self.bucket(), certificateAuthority: nil) == nil)
        let vm = spec("bank.ledger.0/g2").vm(recipe: recipe, address: "a", server: "bank.ledger.1", disks: ["/dev/vdb"], secrets: [])
        #expect(vm.recoveryPoint?.targetTime == "2026-12-05T22:27:00Z" && vm.recoveryPoint?.drill == true)
    }
}
