import Foundation
import MCloudCore
import MCloudDatabaseEngines
@testable import MCloudCLI
import MCloudHTTP
import MCloudProvider
import MCloudTestSupport
import Synchronization
import Testing

/// `mcloud status` in-process on the ledger fixture applied to memory clouds, whose Deployments report the rollout a
/// test sets and whose clouds can be made to hang: the health, the reasons, the exit codes, the JSON and the metrics.
/// The bed test (StatusBedTests) reads a Deployment's status from a real API server.
@Suite struct StatusCommandTests {
    @Test func anApplicationWhoseReplicasAreAllReadyIsHealthyAndExitsZero() async throws {
        let lab = try await StatusLab()
        let status = await lab.status(["--detailed-exitcode"])
        #expect(status.exitCode == 0, "\(status.stdout)\(status.stderr)")
        #expect(status.stdout.hasPrefix("Application e2e-ledger: Healthy\n"), "\(status.stdout)")
    }

    @Test func fewerReadyReplicasAnEmptyLegAndAChangeByHandShowInTheGoldens() async throws {
        let lab = try await StatusLab()
        lab.catalog.ready = 0
        lab.clouds.backups = []
        try lab.changeImageByHand()
        let human = await lab.status(["--detailed-exitcode"])
        #expect(human.exitCode == 2, "\(human.stderr)")
        try Golden.check(human.stdout, named: "status-ledger.txt")
        let json = await lab.status(["--json"])
        #expect(json.exitCode == 0, "without --detailed-exitcode: \(json.stderr)")
        try Golden.check(json.stdout, named: "status-ledger.json")
        let document = try JSONParser.parse(Array(json.stdout.utf8))
        #expect(document["format_version"]?.stringValue == "1.0")
        #expect(document["health"]?.stringValue == "Degraded")
    }

    @Test func aCloudThatDoesNotAnswerIsUnknownOnceItsTimeoutHasPassed() async throws {
        let lab = try await StatusLab()
        let hung = try #require(lab.clouds.addresses.compactMap { ResourceAddress($0).cloud }.sorted().first)
        lab.catalog.hanging = [hung]
        let began = Date()
        let status = await lab.status(["--detailed-exitcode", "--timeout", "1"])
        #expect(Date().timeIntervalSince(began) < 20, "the other clouds were not held up")
        #expect(status.exitCode == 2, "\(status.stderr)")
        #expect(status.stdout.contains("  cloud \(hung) is down: no answer within 1 s (--timeout)\n"), "\(status.stdout)")
        #expect(status.stdout.hasPrefix("Application e2e-ledger: Unknown ("), "\(status.stdout)")
    }

    @Test func theMetricsFileHoldsAGaugePerCellAndCloudAndOneHealthSeriesPerState() async throws {
        let lab = try await StatusLab()
        lab.catalog.ready = 0
        let file = "\(lab.lab.folder)/mcloud.prom"
        let status = await lab.status(["--prometheus", file])
        #expect(status.exitCode == 0, "\(status.stderr)")
        let metrics = try String(contentsOfFile: file, encoding: .utf8)
        #expect(metrics.contains("# TYPE mcloud_cell_replicas_ready gauge\n"))
        #expect(metrics.contains(#"mcloud_cell_health{application="e2e-ledger",cell="api@eu",audience="eu",cloud="lab",law="GDPR art. 44",state="Degraded"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"mcloud_cell_replicas_ready{application="e2e-ledger",cell="api@eu",audience="eu",cloud="lab",law="GDPR art. 44"} 0"#), "\(metrics)")
        #expect(metrics.components(separatedBy: "mcloud_cloud_up{").count - 1 == Set(lab.clouds.addresses.compactMap { ResourceAddress($0).cloud }).count)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o644, "node_exporter reads it as another user")
        try #require(Promtool.available, "install Debian's prometheus package (scripts/install-deps.sh) for promtool")
        let checked = try Promtool.run(["check", "metrics"], input: metrics)
        #expect(checked.status == 0, "\(checked.output)")
    }

    /// A MariaDB primary's shipped binary log (docs/dr.md, "MariaDB: binary logs"): the newest log's close is the leg's
    /// archived point; a shipping whose last run failed turns the application Degraded with the reason, exit 2.
    @Test func aShippedBinaryLogIsTheLegsArchivedPointAndItsFailureDegrades() async throws {
        let lab = try await StatusLab()
        let server = try lab.legServer()
        let now = lab.lab.clock.nowSeconds
        func shipped(error: String?) -> String {
            #"{"server": "\#(server)", "newest": "mariadb-bin.000009", "closedAt": "\#(BackupStatus.text(now - 25))", "shippedAt": "\#(BackupStatus.text(now - 24))", "error": \#(error.map { "\"\($0)\"" } ?? "null")}"#
        }
        lab.clouds.files = [BinaryLogArchive.statusKey(server: server): shipped(error: nil)]
        let json = try JSONParser.parse(Array(await lab.status(["--json"]).stdout.utf8))
        let legs = (json["cells"]?.arrayItems ?? []).flatMap { $0["sites"]?.arrayItems ?? [] }.flatMap { $0["backups"]?.arrayItems ?? [] }
        #expect(legs.contains { $0["archived"]?.intValue == now - 25 && $0["archived_age_seconds"]?.intValue == 25 }, "\(legs)")
        lab.clouds.files = [BinaryLogArchive.statusKey(server: server): shipped(error: "uploading mariadb-bin.000010 failed")]
        let failed = await lab.status(["--detailed-exitcode"])
        #expect(failed.exitCode == 2, "\(failed.stdout)\(failed.stderr)")
        #expect(failed.stdout.contains("shipping the binary log failed: uploading mariadb-bin.000010 failed"), "\(failed.stdout)")
    }

    /// The leg's primary reported a standby 2.5 s behind and an archive whose newest point is 40 s old: the JSON, the
    /// metrics (which promtool accepts) and the human view carry both, and the application stays Healthy.
    @Test func aStandbysLagAndAnArchivesNewestPointShowInEveryView() async throws {
        let lab = try await StatusLab()
        let server = try lab.legServer()
        let now = lab.lab.clock.nowSeconds
        lab.clouds.files = [
            DatabaseUserData.replicationKey(server: server): #"""
                {"server": "\#(server)", "at": "\#(BackupStatus.text(now - 30))", "expected": 1, "standbys": [{"name": "standby_1", "state": "streaming", "sync": "quorum", "lagSeconds": 2.5, "lagBytes": 8192}], "error": null}
                """#,
            DatabaseUserData.statusKey(server: server): #"""
                {"server": "\#(server)", "lastAttempt": "\#(BackupStatus.text(now - 30))", "lastSuccess": "\#(BackupStatus.text(now - 3600))", "archivedAt": "\#(BackupStatus.text(now - 40))", "archivedWAL": "000000010000000000000007", "repository": "\#(server)/g1", "error": null, "verify": null, "pgbackrest": []}
                """#,
        ]
        let human = await lab.status(["--detailed-exitcode"])
        #expect(human.exitCode == 0, "\(human.stdout)\(human.stderr)")
        #expect(human.stdout.contains("\nArchives and standbys, as their primaries last reported them:\n"), "\(human.stdout)")
        #expect(human.stdout.contains(": archive's newest point 40s old; standby_1 streaming quorum, 2.5 s and 8192 bytes behind\n"), "\(human.stdout)")
        let json = try JSONParser.parse(Array(await lab.status(["--json"]).stdout.utf8))
        let legs = (json["cells"]?.arrayItems ?? []).flatMap { $0["sites"]?.arrayItems ?? [] }.flatMap { $0["backups"]?.arrayItems ?? [] }
        let leg = try #require(legs.first { $0["standbys"] != nil })
        #expect(leg["archived_age_seconds"]?.intValue == 40 && leg["archived"]?.intValue == now - 40)
        #expect(leg["standbys"]?.arrayItems.first?.serialized(pretty: false) == #"{"name":"standby_1","state":"streaming","sync":"quorum","lag_seconds":2.5,"lag_bytes":8192}"#)
        let file = "\(lab.lab.folder)/mcloud.prom"
        #expect(await lab.status(["--prometheus", file]).exitCode == 0)
        let metrics = try String(contentsOfFile: file, encoding: .utf8)
        #expect(metrics.contains(#",standby="standby_1",sync="quorum"} 2.5"#) && metrics.contains("# TYPE mcloud_database_replication_lag_seconds gauge\n"), "\(metrics)")
        #expect(metrics.contains(#",standby="standby_1",sync="quorum"} 8192"#) && metrics.contains("mcloud_backup_archive_newest_age_seconds{"), "\(metrics)")
        try #require(Promtool.available, "install Debian's prometheus package (scripts/install-deps.sh) for promtool")
        let checked = try Promtool.run(["check", "metrics"], input: metrics)
        #expect(checked.status == 0, "\(checked.output)")
    }

    /// What the leg's primary wrote when a standby stopped, when its backup job stopped, and when its archive lost a
    /// segment: each turns the leg's cell Degraded with the reason, and exits 2.
    @Test(arguments: [
        ("a standby stopped", "replication", #"{"server": "SERVER", "at": "NOW-30", "expected": 1, "standbys": [], "error": null}"#, "0 of 1 standbys of SERVER follow it"),
        // The fixture's schedule is yearly ("0 0 1 1 *"): a backup 800 days old is more than twice it.
        ("the backup job stopped 800 days ago", "backups", "", "the latest backup is 800d old, more than twice the schedule's"),
        (
            "a WAL segment missing", "status",
            #"{"server": "SERVER", "lastAttempt": "NOW-60", "lastSuccess": "NOW-60", "archivedAt": "NOW-40", "repository": "SERVER/g1", "error": null, "verify": {"verifiedAt": "NOW-60", "walRanges": [["15-1", "000000010000000000000001", "000000010000000000000003"], ["15-1", "000000010000000000000005", "000000010000000000000006"]], "error": null}, "pgbackrest": []}"#,
            "the archive SERVER/g1 misses WAL after 000000010000000000000003 and before 000000010000000000000005"
        ),
    ] as [(String, String, String, String)])
    func aLegWhosePrimaryReportsTroubleIsDegradedWithTheReason(_ what: String, _ object: String, _ json: String, _ reason: String) async throws {
        let lab = try await StatusLab()
        let server = try lab.legServer()
        let now = lab.lab.clock.nowSeconds
        var text = json.replacingOccurrences(of: "SERVER", with: server)
        for ago in [30, 40, 60, 86400] { text = text.replacingOccurrences(of: "NOW-\(ago)", with: BackupStatus.text(now - ago)) }
        if object == "backups" {
            lab.clouds.backups = [BackupObject(key: "\(server)/old.sql.gz.age", time: now - 800 * 86400, size: 1024, sha256: nil)]
        } else {
            lab.clouds.files = [object == "replication" ? DatabaseUserData.replicationKey(server: server) : DatabaseUserData.statusKey(server: server): text]
        }
        let status = await lab.status(["--detailed-exitcode"])
        #expect(status.exitCode == 2, "\(what): \(status.stdout)\(status.stderr)")
        #expect(status.stdout.hasPrefix("Application e2e-ledger: Degraded ("), "\(what): \(status.stdout)")
        #expect(status.stdout.contains(reason.replacingOccurrences(of: "SERVER", with: server)), "\(what): \(status.stdout)")
    }

    /// Debian's prometheus scrapes `--listen` on loopback every second; a query then returns the ready replicas.
    @Test func aRealPrometheusScrapesListenAndAQueryReturnsTheReadyReplicas() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/prometheus"), "install Debian's prometheus package (scripts/install-deps.sh)")
        let lab = try await StatusLab()
        lab.catalog.ready = 0
        let stderr = BufferedOutput()
        let serving = Task { await lab.status(["--listen", "127.0.0.1:0"], stderr: stderr) }
        defer { serving.cancel() }
        var port: Int?
        for _ in 0..<200 where port == nil {
            port = stderr.text.split(separator: "http://127.0.0.1:").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }
            try await Task.sleep(for: .milliseconds(50))
        }
        let target = try #require(port, "\(stderr.text)")
        let web = try MetricsListener(host: "127.0.0.1", port: 0).port
        let folder = "\(lab.lab.folder)/prometheus"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
            global: { scrape_interval: 1s, evaluation_interval: 1s }
            scrape_configs:
              - job_name: mcloud
                static_configs: [{ targets: ["127.0.0.1:\(target)"] }]

            """.write(toFile: "\(folder)/prometheus.yml", atomically: true, encoding: .utf8)
        try await MCloudTestSupport.Command.whileRunning(
            "/usr/bin/prometheus", ["--config.file=\(folder)/prometheus.yml", "--storage.tsdb.path=\(folder)/data", "--web.listen-address=127.0.0.1:\(web)"]
        ) {
            let query = "http://127.0.0.1:\(web)/api/v1/query?query=mcloud_cell_replicas_ready"
            var result: [JSONValue] = []
            // Up to 2 minutes: prometheus opens its TSDB before the first scrape, slowly on a loaded machine.
            for _ in 0..<480 where result.isEmpty {
                try await Task.sleep(for: .milliseconds(250))
                guard let answer = try? await CurlTransport().send(HTTPRequest(method: .GET, url: query)), answer.status == 200 else { continue }
                result = (try? JSONParser.parse(answer.body))?["data"]?["result"]?.arrayItems ?? []
            }
            let sample = try #require(result.first, "prometheus never scraped \(target)")
            #expect(sample["metric"]?["cell"]?.stringValue == "api@eu")
            #expect(sample["metric"]?["law"]?.stringValue == "GDPR art. 44")
            #expect(sample["value"]?.arrayItems.last?.stringValue == "0")
        }
    }

    /// A call and the error it must print: for status's options, and report's (ReportStatusTests).
    struct Misuse: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test(arguments: [
        Misuse(arguments: ["--timeout", "0"], message: "error: --timeout must be a whole number of seconds from 1 to 3600, not \"0\"\n"),
        Misuse(arguments: ["--timeout", "soon"], message: "error: --timeout must be a whole number of seconds from 1 to 3600, not \"soon\"\n"),
        Misuse(arguments: ["--jsn"], message: "error: unknown option '--jsn'; did you mean '--json'?\n"),
        Misuse(arguments: ["--listen", "9464"], message: "error: --listen needs HOST:PORT, such as 127.0.0.1:9464, not \"9464\"\n"),
        Misuse(arguments: ["--listen", "127.0.0.1:9464", "--json"], message: "error: --json is for one reading; --listen serves the metrics until stopped\n"),
        Misuse(arguments: ["--listen", "localhost:9464"], message: "error: cannot listen on localhost:9464: localhost is not an IPv4 address\n"),
        Misuse(arguments: ["--watch", "--detailed-exitcode"], message: "error: --detailed-exitcode cannot be used with --watch, which prints each reading until stopped\n"),
        Misuse(arguments: ["--watch", "--prometheus", "m.prom"], message: "error: --prometheus cannot be used with --watch, which prints each reading until stopped\n"),
        Misuse(arguments: ["--watch", "--listen", "127.0.0.1:0"], message: "error: --listen cannot be used with --watch, which prints each reading until stopped\n"),
        Misuse(arguments: ["--watch", "--interval", "0"], message: "error: --interval must be a whole number of seconds from 1 to 3600, not \"0\"\n"),
        Misuse(arguments: ["--interval", "5"], message: "error: --interval is the wait between --watch's readings; add --watch\n"),
        Misuse(arguments: ["ledgr"], message: "error: the state records no cell 'ledgr'; did you mean 'ledger'?\n"),
    ])
    func aBadCallIsAClearErrorAndExitsOne(_ misuse: Misuse) async throws {
        let lab = try await StatusLab()
        let status = await lab.status(misuse.arguments)
        #expect(status.exitCode == 1)
        #expect(status.stderr.hasPrefix(misuse.message), "\(status.stderr)")
    }
}

/// The ledger applied to memory clouds, read back through `StatusClouds`.
struct StatusLab {
    let lab: ClockLab
    let catalog: StatusClouds
    var clouds: MemoryClouds { lab.clouds }

    init() async throws {
        lab = try ClockLab()
        try await lab.apply()
        catalog = StatusClouds(lab.clouds)
        lab.clouds.backups = [BackupObject(key: "\(lab.server)/20270115T070000Z.sql.gz", time: Int(WorkflowClockTests.start) - 3600, size: 4096, sha256: nil)]
    }

    /// The server the recorded DR leg backs up: where its primary's status objects are.
    func legServer() throws -> String {
        let bucket = try #require(clouds.addresses.map(ResourceAddress.init).first { $0.kind == .backupBucket })
        let body = try #require(clouds.stored(in: bucket.cloud).first { $0.0 == bucket }?.1)
        return try #require(BackupHealth.Watch(bucket: body)?.server)
    }

    func status(_ arguments: [String], stderr: BufferedOutput = BufferedOutput(), clock: (any WallClock)? = nil, isTerminal: Bool = false) async -> Run {
        await run("status", arguments, stderr: stderr, clock: clock, isTerminal: isTerminal)
    }

    /// `command` in-process on the lab's manifests, catalog and state, through its memory clouds.
    func run(
        _ command: String, _ arguments: [String], stderr: BufferedOutput = BufferedOutput(), clock: (any WallClock)? = nil, isTerminal: Bool = false
    ) async -> Run {
        let stdout = BufferedOutput()
        let options = ["-f", "\(lab.folder)/app", "--providers", "\(lab.folder)/providers", "--state", "file://\(lab.folder)/state.json"]
        let context = CommandContext(
            stdout: stdout, stderr: stderr, environment: ["NO_COLOR": "1", "HOME": lab.folder], isTerminal: isTerminal, clock: clock ?? lab.clock,
            providers: catalog
        )
        let code = await MCloud.main([command] + options + arguments, context: context)
        return Run(exitCode: code.rawValue, stdout: stdout.text, stderr: stderr.text)
    }

    /// Someone set the api Deployment's image by hand.
    func changeImageByHand() throws {
        let address = try #require(clouds.addresses.map(ResourceAddress.init).first { $0.kind == .deployment })
        let body = try #require(clouds.stored(in: address.cloud).first { $0.0 == address }?.1)
        let text = body.serialized(pretty: false).replacingOccurrences(of: "registry.example/ledger-api:1.0.0", with: "registry.example/ledger-api:hotfix")
        clouds.store(address, try JSONParser.parse(Array(text.utf8)))
    }
}

/// The memory clouds, with Deployments that report `ready` of their replicas ready (all when nil) and clouds that
/// never answer.
final class StatusClouds: ProviderCatalog {
    private let settings = Mutex<(ready: Int?, hanging: Set<String>)>((nil, []))
    let memory: MemoryClouds

    init(_ memory: MemoryClouds) {
        self.memory = memory
    }

    var ready: Int? {
        get { settings.withLock { $0.ready } }
        set { settings.withLock { $0.ready = newValue } }
    }

    var hanging: Set<String> {
        get { settings.withLock { $0.hanging } }
        set { settings.withLock { $0.hanging = newValue } }
    }

    func provider(named name: ProviderName, for cloud: Cloud) throws(ProviderError) -> any ResourceProvider {
        StatusCloud(inner: MemoryCloud(name: name, cloud: cloud.name, clouds: memory), hangs: hanging.contains(cloud.name), ready: ready)
    }
}

struct StatusCloud: ResourceProvider, BackupLister {
    let inner: MemoryCloud
    let hangs: Bool
    let ready: Int?
    var name: ProviderName { inner.name }
    var cloud: String { inner.cloud }

    func refresh(application: String, desired: [DesiredResource], recorded: [ResourceState]) async throws(ProviderError) -> [ObservedResource] {
        if hangs { try? await Task.sleep(for: .seconds(3600)) }
        return try await inner.refresh(application: application, desired: desired, recorded: recorded).map { found in
            var found = found
            if var rollout = Rollout(deployment: found.attributes) {
                rollout.ready = ready ?? rollout.desired
                rollout.updated = rollout.desired
                found.rollout = rollout
            }
            return found
        }
    }

    func replacementReasons(desired: DesiredResource, current: JSONValue) -> [String] { [] }
    func create(_ resource: DesiredResource) async throws(ProviderError) -> ObservedResource { try await inner.create(resource) }
    func update(_ resource: DesiredResource, recorded: ResourceState) async throws(ProviderError) -> ObservedResource { try await inner.update(resource, recorded: recorded) }
    func delete(_ resource: ResourceState) async throws(ProviderError) { try await inner.delete(resource) }
    func backups(in bucket: ResourceState) async throws(ProviderError) -> [BackupObject] { try await inner.backups(in: bucket) }
    func object(_ key: String, in bucket: ResourceState) async throws(ProviderError) -> [UInt8]? { try await inner.object(key, in: bucket) }
    func put(_ key: String, _ bytes: [UInt8], contentType: String, in bucket: ResourceState) async throws(ProviderError) {
        try await inner.put(key, bytes, contentType: contentType, in: bucket)
    }
}
