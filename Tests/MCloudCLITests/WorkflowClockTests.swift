import Foundation
import MCloudCore
import MCloudDatabaseEngines
@testable import MCloudCLI
import MCloudProvider
import Synchronization
import Testing

/// Drill and failover run in-process on a manual clock, against providers that keep resources and one DR leg's
/// backups in memory: the RPO, RTO, recovery point age and time-out they report follow the clock, with no real
/// waiting. The bed tests (FailoverBedTests) run the same commands against the real clouds.
@Suite struct WorkflowClockTests {
    /// 2027-01-15T08:00:00Z: the test's "now" when it starts.
    static let start = 1_800_000_000.0

    @Test func aDrillsRPOAndRTOFollowTheClock() async throws {
        let lab = try ClockLab()
        try await lab.apply()
        lab.clouds.backups = [BackupObject(key: "\(lab.server)/20270115T070000Z.sql.gz", time: Int(Self.start) - 3600, size: 4096, sha256: nil)]
        // The scratch server reports 40 s after it was made.
        let reportAt = lab.clock.now + 40
        lab.clouds.report = { now in now >= reportAt }
        let drill = await lab.run(["drill", "ledger", "--json"])
        #expect(drill.exitCode == 0, "\(drill.stderr)")
        let report = try JSONParser.parse(Array(drill.stdout.utf8))
        #expect(report["passed"] == .bool(true))
        #expect(report["rpo_seconds"]?.intValue == 3600)
        #expect(report["rto_seconds"]?.intValue == 40)
        #expect(report["deleted"]?.arrayItems.count == 2, "the scratch volume and server are deleted")
        #expect(lab.clock.sleeps.allSatisfy { $0 == 2 }, "\(lab.clock.sleeps)")
        #expect(lab.clouds.addresses.allSatisfy { !$0.contains(".drill-") })
    }

    /// Security H1: a key planted in the bucket, newest of all and carrying a YAML line break, is never the recovery
    /// point (it would reach the scratch server's user data).
    @Test func aKeyOutsideTheBackupLayoutIsNeverTheRecoveryPoint() async throws {
        let lab = try ClockLab()
        try await lab.apply()
        let planted = "\(lab.server)/20991231T235959Z\u{2028}bootcmd: [[sh, -c, \"id > PWNED\"]]\u{2028}x.sql.gz"
        lab.clouds.backups = [
            BackupObject(key: "\(lab.server)/20270115T070000Z.sql.gz", time: Int(Self.start) - 3600, size: 4096, sha256: nil),
            BackupObject(key: planted, time: Int(Self.start) + 999_999, size: 1, sha256: nil),
        ]
        let reportAt = lab.clock.now
        lab.clouds.report = { now in now >= reportAt }
        let drill = await lab.run(["drill", "ledger", "--json"])
        #expect(drill.exitCode == 0, "\(drill.stderr)")
        let report = try JSONParser.parse(Array(drill.stdout.utf8))
        #expect(report["recovery_point"]?["object"]?.stringValue == "\(lab.server)/20270115T070000Z.sql.gz")
        let failover = await lab.run(["failover", "dc-a", "--auto-approve", "--json"])
        #expect(failover.exitCode == 0, "\(failover.stderr)")
        let restore = try JSONParser.parse(Array(failover.stdout.utf8))["restores"]?.arrayItems.first
        #expect(restore?["recovery_point"]?["object"]?.stringValue == "\(lab.server)/20270115T070000Z.sql.gz")
        #expect(!lab.clouds.bodies.contains { $0.contains("PWNED") }, "the planted key reached a body")
    }

    /// Security H2: a leg whose cloud names no backup identity is refused by drill and failover before anything is
    /// made, since the scratch server and the new primary could read it only with mcloud's own keys.
    @Test func aLegWithoutABackupIdentityIsRefusedByDrillAndFailoverBeforeAnythingIsMade() async throws {
        let lab = try ClockLab()
        try await lab.apply()
        lab.clouds.backups = [BackupObject(key: "\(lab.server)/20270115T070000Z.sql.gz", time: Int(Self.start) - 3600, size: 4096, sha256: nil)]
        try lab.removeBackupProfile(of: "dc-b")
        let before = lab.clouds.addresses.sorted()
        let drill = await lab.run(["drill", "ledger"])
        #expect(drill.exitCode == 1)
        #expect(drill.stderr.contains(" in dc-b has no backup identity for the scratch server to read it with: set endpoints.objectStorage.backupProfile in dc-b's catalog entry ("), "\(drill.stderr)")
        let failover = await lab.run(["failover", "dc-a", "--auto-approve"])
        #expect(failover.exitCode == 1)
        #expect(failover.stderr.contains(" in dc-b has no backup identity for the new primary to read it with: "), "\(failover.stderr)")
        #expect(failover.stderr.hasSuffix("Nothing was changed.\n"), "\(failover.stderr)")
        #expect(lab.clouds.addresses.sorted() == before)
    }

    /// Security H2 step 4: a leg on AWS needs no backup profile; the drill makes its scratch server a restore user
    /// of its own in the leg's cloud, which may read the recovery point's folder and write the report only, names it
    /// in the server's `spec.restore` (so the provider mints that user's key) and deletes it after the server.
    @Test func aDrillOfALegOnAWSGivesTheScratchServerARestoreUserAndDeletesItAfterwards() async throws {
        let lab = try ClockLab()
        try lab.moveToAWS("dc-b")
        try await lab.applyWithABackup(reportingAt: lab.clock.now)
        let drill = await lab.run(["drill", "ledger", "--json"])
        #expect(drill.exitCode == 0, "\(drill.stderr)")
        let report = try JSONParser.parse(Array(drill.stdout.utf8))
        let stamp = "20270115t080000"
        let user = "e2e-ledger.ledger.restore-\(stamp)"
        let identity = "aws.dc-b.BackupIdentity.\(user)"
        let made = report["made"]?.arrayItems.compactMap(\.stringValue) ?? []
        let deleted = report["deleted"]?.arrayItems.compactMap(\.stringValue) ?? []
        #expect(made.first == identity && deleted.last == identity, "\(made) \(deleted)")
        let restoreUser = try #require(lab.clouds.everMade.first { $0["metadata"]?["address"]?.stringValue == identity })
        let server = "e2e-ledger.ledger.drill-\(stamp)"
        #expect(restoreUser["spec"] == .object([
            ("userName", .string(user)), ("bucketName", .string("mcloud-e2e-ledger-ledger-4e1ae16e")), ("prefix", .string("\(lab.server)/")), ("access", .string("restore")),
            ("reportKey", .string("\(server)/restored.json")),
        ]))
        let scratch = try #require(lab.clouds.everMade.first { $0["kind"]?.stringValue == "DatabaseServer" && $0["metadata"]?["name"]?.stringValue == server })
        #expect(scratch["spec"]?["restore"]?["identity"]?["user"]?.stringValue == user, "\(scratch)")
        #expect(lab.clouds.addresses.allSatisfy { !$0.contains(".restore-") && !$0.contains(".drill-") })
    }

    /// The same for a failover: the plan makes the new primary's restore user before the server, and the failover
    /// waits for its report (or gives up at `--timeout`), prints the outcome, then deletes the user and drops it from
    /// the state.
    @Test(arguments: [(60.0, "finished from x"), (2000.0, "is not known: no restore report at s3://")])
    func aFailoverFromALegOnAWSGivesTheNewPrimaryARestoreUserAndDeletesItAfterItsReport(reportAfter: Double, outcome: String) async throws {
        let lab = try ClockLab()
        try lab.moveToAWS("dc-b")
        let reportAt = lab.clock.now + reportAfter
        try await lab.applyWithABackup(reportingAt: reportAt)
        let failover = await lab.run(["failover", "dc-a", "--auto-approve", "--timeout", "1800"])
        #expect(failover.exitCode == 0, "\(failover.stderr)")
        let user = "e2e-ledger.ledger.restore-20270115t080000"
        let identity = "aws.dc-b.BackupIdentity.\(user)"
        let primary = try #require(lab.clouds.everMade.first { $0["kind"]?.stringValue == "DatabaseServer" && $0["spec"]?["restore"] != nil })
        let server = try #require(primary["metadata"]?["name"]?.stringValue)
        #expect(primary["spec"]?["restore"]?["identity"]?["user"]?.stringValue == user, "\(primary)")
        #expect(lab.clouds.everMade.contains { $0["metadata"]?["address"]?.stringValue == identity && $0["spec"]?["access"] == .string("restore") })
        #expect(failover.stdout.contains("The restore of \(server) \(outcome)"), "\(failover.stdout)")
        #expect(failover.stdout.contains("Deleted its restore user \(identity).\n"), "\(failover.stdout)")
        #expect(lab.clock.now >= WorkflowClockTests.start + min(reportAfter, 1800), "the failover waited for the report or the time-out")
        #expect(lab.clouds.addresses.allSatisfy { !$0.contains(".restore-") })
        #expect(try !String(contentsOfFile: "\(lab.folder)/state.json", encoding: .utf8).contains(".restore-"))
    }

    @Test func aDrillWithoutAReportTimesOutOnTheClockAndCleansUp() async throws {
        let lab = try ClockLab()
        try await lab.apply()
        lab.clouds.backups = [BackupObject(key: "\(lab.server)/20270115T075000Z.sql.gz", time: Int(Self.start) - 600, size: 1, sha256: nil)]
        let began = lab.clock.now
        let drill = await lab.run(["drill", "ledger", "--timeout", "30"])
        #expect(drill.exitCode == 1)
        #expect(drill.stderr.contains("no restore report at s3://") && drill.stderr.contains("within 30 s (--timeout)"), "\(drill.stderr)")
        #expect(lab.clock.now - began == 30, "the time-out is the clock's, to the second")
        #expect(drill.stdout.contains("deleted "), "\(drill.stdout)")
        #expect(lab.clouds.addresses.allSatisfy { !$0.contains(".drill-") })
    }

    @Test func aFailoversRecoveryPointAgeFollowsTheClock() async throws {
        let lab = try ClockLab()
        try await lab.apply()
        lab.clouds.backups = [BackupObject(key: "\(lab.server)/20270115T063000Z.sql.gz", time: Int(Self.start) - 5400, size: 77, sha256: nil)]
        lab.clock.advance(by: 600)
        let failover = await lab.run(["failover", "dc-a", "--auto-approve", "--json"])
        #expect(failover.exitCode == 0, "\(failover.stderr)")
        let report = try JSONParser.parse(Array(failover.stdout.utf8))
        let restore = try #require(report["restores"]?.arrayItems.first)
        #expect(restore["age_seconds"]?.intValue == 6000)
        #expect(restore["recovery_point"]?["object"]?.stringValue == "\(lab.server)/20270115T063000Z.sql.gz")
        #expect(report["outcome"]?.stringValue == "applied")
        #expect(failover.stderr.contains("1h 40m old"), "the header, on standard error with --json: \(failover.stderr)")
        #expect(lab.clouds.addresses.contains { $0.hasPrefix("openstack.dc-b.DatabaseServer.") })
    }

    /// The ledger applied, its leg holding a dump 90 minutes old and binary logs shipped before it, and after it up to
    /// two minutes ago (docs/dr.md, "MariaDB: binary logs").
    static func shippedLogsLab() async throws -> ClockLab {
        let lab = try ClockLab()
        try await lab.apply()
        lab.clouds.backups = [
            BackupObject(key: "\(lab.server)/binlog/mariadb-bin.000003.age", time: Int(Self.start) - 7200, size: 9, sha256: nil),
            BackupObject(key: "\(lab.server)/20270115T063000Z.sql.gz.age", time: Int(Self.start) - 5400, size: 77, sha256: nil),
            BackupObject(key: "\(lab.server)/binlog/mariadb-bin.000007.age", time: Int(Self.start) - 120, size: 9, sha256: nil),
            BackupObject(key: "\(lab.server)/binlog/status.json", time: Int(Self.start) - 60, size: 9, sha256: nil),
        ]
        return lab
    }

    /// The restore replays the logs shipped after the dump, so the point a failover states is the newest log's upload;
    /// the object is still the dump.
    @Test func aFailoversRecoveryPointIsTheNewestLogShippedAfterTheDump() async throws {
        let lab = try await Self.shippedLogsLab()
        lab.clock.advance(by: 600)
        let failover = await lab.run(["failover", "dc-a", "--auto-approve", "--json"])
        #expect(failover.exitCode == 0, "\(failover.stderr)")
        let restore = try #require(try JSONParser.parse(Array(failover.stdout.utf8))["restores"]?.arrayItems.first)
        #expect(restore["age_seconds"]?.intValue == 720)
        #expect(restore["recovery_point"]?["object"]?.stringValue == "\(lab.server)/20270115T063000Z.sql.gz.age")
    }

    /// A drill's scratch server replays the logs too: its RPO is the newest log's age, its object the dump.
    @Test func aDrillsRPOIsTheNewestLogShippedAfterTheDump() async throws {
        let lab = try await Self.shippedLogsLab()
        let reportAt = lab.clock.now
        lab.clouds.report = { now in now >= reportAt }
        let drill = await lab.run(["drill", "ledger", "--json"])
        #expect(drill.exitCode == 0, "\(drill.stderr)")
        let report = try JSONParser.parse(Array(drill.stdout.utf8))
        #expect(report["rpo_seconds"]?.intValue == 120)
        #expect(report["recovery_point"]?["object"]?.stringValue == "\(lab.server)/20270115T063000Z.sql.gz.age")
    }

    /// `--to` a moment the shipped logs hold: the new server restores the dump before it and replays up to it.
    @Test func aFailoverToAMomentOfShippedLogsReplaysTheDumpBeforeItUpToIt() async throws {
        let lab = try await Self.shippedLogsLab()
        let late = await lab.run(["failover", "dc-a", "--to", BackupStatus.text(Int(Self.start) - 60), "--auto-approve"])
        #expect(late.exitCode == 1 && late.stderr.contains("is after the newest point"), "\(late.stderr)")
        let target = BackupStatus.text(Int(Self.start) - 1800)
        let failover = await lab.run(["failover", "dc-a", "--to", target, "--auto-approve", "--json"])
        #expect(failover.exitCode == 0, "\(failover.stderr)")
        let restore = try #require(try JSONParser.parse(Array(failover.stdout.utf8))["restores"]?.arrayItems.first)
        #expect(restore["recovery_point"]?["object"]?.stringValue == "\(lab.server)/20270115T063000Z.sql.gz.age")
        #expect(restore["age_seconds"]?.intValue == 1800)
        #expect(lab.clouds.bodies.contains { $0.contains(#""targetTime":"\#(target)""#) }, "the new server is not told to stop at \(target)")
    }
}

/// The ledger fixture with a memory catalog and a manual clock.
struct ClockLab {
    let folder = NSTemporaryDirectory() + "mcloud-clock-\(UUID().uuidString.prefix(8))"
    let clock = ManualClock(now: WorkflowClockTests.start)
    let clouds: MemoryClouds
    /// Where the state lives: a file in the folder unless a test gives the team backend's URL.
    let state: String

    init(state: String? = nil) throws {
        clouds = MemoryClouds(clock: clock)
        self.state = state ?? "file://\(folder)/state.json"
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder + "/app", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: folder + "/providers", withIntermediateDirectories: true)
        try manager.copyItem(atPath: "\(fixtures)/failover/app/application.yaml", toPath: "\(folder)/app/application.yaml")
        var catalog = try String(contentsOfFile: "\(fixtures)/failover/providers/clouds.yaml", encoding: .utf8)
        for (placeholder, value) in [("KUBECONFIG_PATH", "\(folder)/kubeconfig"), ("IMAGE_ID", "image-1"), ("OS_CLOUD", "lab"), ("MOTO_URL", "http://127.0.0.1:9")] {
            catalog = catalog.replacingOccurrences(of: placeholder, with: value)
        }
        try catalog.write(toFile: "\(folder)/providers/clouds.yaml", atomically: true, encoding: .utf8)
    }

    /// Takes `cloud`'s backup identity out of the catalog, as an operator's catalog without one would be.
    func removeBackupProfile(of cloud: String) throws {
        let path = "\(folder)/providers/clouds.yaml"
        let documents = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n---\n").map { document in
            document.contains("metadata: { name: \(cloud) }") ? document.replacingOccurrences(of: ", backupProfile: bed-backup", with: "") : document
        }
        try documents.joined(separator: "\n---\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Makes `cloud` an AWS region whose catalog names no backup profile: a leg there gets users of its own.
    func moveToAWS(_ cloud: String) throws {
        let path = "\(folder)/providers/clouds.yaml"
        let documents = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n---\n").map { document in
            guard document.contains("metadata: { name: \(cloud) }") else { return document }
            return document.replacingOccurrences(of: ", backupProfile: bed-backup", with: "").replacingOccurrences(of: "api: openstack", with: "api: aws")
                .replacingOccurrences(of: "region: RegionOne", with: "region: eu-west-1").replacingOccurrences(of: "openstack: { cloud: lab }", with: "aws: { profile: lab-deploy }")
                .replacingOccurrences(of: "\n    objectStorage: { url: \"http://127.0.0.1:9\" }", with: "")
        }
        try documents.joined(separator: "\n---\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The ledger's primary server's name: the folder of its backups.
    var server: String { "e2e-ledger.ledger.0" }

    func apply() async throws {
        let applied = await run(["apply", "--auto-approve"])
        #expect(applied.exitCode == 0, "\(applied.stderr)")
    }

    /// Applies the ledger; its primary then has one backup, an hour old, and a restore reports from `time` on.
    func applyWithABackup(reportingAt time: Double) async throws {
        try await apply()
        clouds.backups = [BackupObject(key: "\(server)/20270115T070000Z.sql.gz", time: Int(WorkflowClockTests.start) - 3600, size: 4096, sha256: nil)]
        clouds.report = { now in now >= time }
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) async -> Run {
        let stdout = BufferedOutput()
        let stderr = BufferedOutput()
        let options = ["-f", "\(folder)/app", "--providers", "\(folder)/providers", "--state", state]
        let context = CommandContext(
            stdout: stdout, stderr: stderr, environment: ["NO_COLOR": "1", "HOME": folder].merging(environment) { $1 }, clock: clock, providers: clouds
        )
        let code = await MCloud.main([arguments[0]] + options + arguments.dropFirst(), context: context)
        return Run(exitCode: code.rawValue, stdout: stdout.text, stderr: stderr.text)
    }
}

/// Every cloud's resources in one dictionary, and one DR leg's backups: what a provider keeps, without a cloud.
final class MemoryClouds: ProviderCatalog {
    private let objects = Mutex<[ResourceAddress: JSONValue]>([:])
    private let history = Mutex<[JSONValue]>([])
    private let settings = Mutex<(backups: [BackupObject], report: @Sendable (Double) -> Bool, files: [String: String], agent: @Sendable (String, MemoryClouds) -> Void)>(
        ([], { _ in false }, [:], { _, _ in })
    )
    /// The time the scratch server's report is looked for at.
    let clock: any WallClock

    init(clock: any WallClock) {
        self.clock = clock
    }

    var backups: [BackupObject] {
        get { settings.withLock { $0.backups } }
        set { settings.withLock { $0.backups = newValue } }
    }

    /// Objects every bucket holds beside its backups, by key: a primary's status object or replication report.
    var files: [String: String] {
        get { settings.withLock { $0.files } }
        set { settings.withLock { $0.files = newValue } }
    }

    /// What the members do when an object is written into the bucket: the switchover tests' agents.
    var agent: @Sendable (String, MemoryClouds) -> Void {
        get { settings.withLock { $0.agent } }
        set { settings.withLock { $0.agent = newValue } }
    }

    func written(_ key: String) { agent(key, self) }

    /// Whether the scratch server's restore report is in the bucket at a time.
    var report: @Sendable (Double) -> Bool {
        get { settings.withLock { $0.report } }
        set { settings.withLock { $0.report = newValue } }
    }

    /// Whether a DatabaseServer made reports a private address (`MemoryCloud.create`).
    var reportsServerAddresses: Bool {
        get { reporting.withLock { $0 } }
        set { reporting.withLock { $0 = newValue } }
    }
    private let reporting = Mutex(false)

    var addresses: [String] { objects.withLock { $0.keys.map(\.rawValue) } }
    /// Every body made, as JSON text.
    var bodies: [String] { objects.withLock { $0.values.map { $0.serialized(pretty: false) } } }

    func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        MemoryCloud(name: name, cloud: cloud.name, clouds: self)
    }

    /// Every body made, deleted ones included, in order.
    var everMade: [JSONValue] { history.withLock { $0 } }

    func store(_ address: ResourceAddress, _ body: JSONValue?) {
        objects.withLock { $0[address] = body }
        if let body { history.withLock { $0.append(body) } }
    }
    func stored(in cloud: String) -> [(ResourceAddress, JSONValue)] {
        objects.withLock { $0.filter { $0.key.cloud == cloud }.sorted { $0.key < $1.key } }
    }
}

struct MemoryCloud: ResourceProvider, BackupLister {
    let name: ProviderName
    let cloud: String
    let clouds: MemoryClouds

    func refresh(application: String, desired: [DesiredResource], recorded: [ResourceState]) async throws(ProviderError) -> [ObservedResource] {
        clouds.stored(in: cloud).map { ObservedResource(address: $0.0, providerID: "id-\($0.0)", attributes: $0.1) }
    }

    func replacementReasons(desired: DesiredResource, current: JSONValue) -> [String] { [] }

    func create(_ resource: DesiredResource) async throws(ProviderError) -> ObservedResource {
        var body = resource.body
        // A server's private address, by its copy: `.0` 10.0.0.10, `.1` 10.0.0.11.
        if clouds.reportsServerAddresses, resource.type == .databaseServer, let copy = Int(resource.address.rawValue.split(separator: ".").last ?? "") {
            body = ResourceBody.setting(ResourceBody.reportedAddressesPath, to: .array([.string("10.0.0.\(10 + copy)")]), in: body)
        }
        clouds.store(resource.address, body)
        return ObservedResource(address: resource.address, providerID: "id-\(resource.address)", attributes: body)
    }

    func update(_ resource: DesiredResource, recorded: ResourceState) async throws(ProviderError) -> ObservedResource {
        try await create(resource)
    }

    func delete(_ resource: ResourceState) async throws(ProviderError) {
        clouds.store(resource.address, nil)
    }

    func backups(in bucket: ResourceState) async throws(ProviderError) -> [BackupObject] { clouds.backups }

    func object(_ key: String, in bucket: ResourceState) async throws(ProviderError) -> [UInt8]? {
        if let file = clouds.files[key] { return Array(file.utf8) }
        guard key.hasSuffix("/restored.json"), clouds.report(clouds.clock.now) else { return nil }
        let server = String(key.dropLast("/restored.json".count))
        return Array(#"{"server": "\#(server)", "object": "x", "startedAt": "2027-01-15T08:00:00Z", "finishedAt": "2027-01-15T08:00:40Z", "error": null}"#.utf8)
    }

    func put(_ key: String, _ bytes: [UInt8], contentType: String, in bucket: ResourceState) async throws(ProviderError) {
        clouds.files[key] = String(decoding: bytes, as: UTF8.self)
        clouds.written(key)
    }
}
