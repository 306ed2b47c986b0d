import Foundation
import MCloudAWS
import MCloudDatabaseEngines
import MCloudSecrets
import MCloudTestSupport

/// `mcloud-bench database-vms [--engines postgresql,mysql,redis,clickhouse] [--rows N] [--parallel]`: each engine
/// Debian 12 ships, booted for real in the container bed (scripts/testbed/container.sh) from the engine catalog's user
/// data with a DR bucket on the moto bed, holding N rows or keys: seconds from boot to cloud-init done with the engine
/// answering, for one backup and for the restore into a second, fresh instance, which must then hold the same rows,
/// and the restore's throughput in MB of the engine's data per second. PostgreSQL archives as a primary with a DR leg
/// does (pgBackRest through moto's TLS front, restored from the newest point at the second instance's boot), and its
/// archive lag is measured: from a commit to its WAL segment in the bucket. Other engines dump (age-encrypted) and
/// restore the dump; MariaDB also ships its binary log (`BinaryLogArchive`), whose lag is measured from a commit to
/// the shipped log that holds it. One engine at a time unless `--parallel`.
enum DatabaseVMBenchmark {
    struct Result {
        var sample: EngineSample
        var ready: Double
        var backup: Double
        var restore: Double
        var bytes: Int
        /// The engine's bytes for the rows on the primary.
        var dataBytes: Int
        /// Commit-to-archived seconds, one per sample commit: PostgreSQL's WAL, MariaDB's binary log; empty for engines
        /// that only dump.
        var archiveLags: [Double]
        /// Whether the backup was a dump, of which `bytes` is the size (PostgreSQL's goes into its archive).
        var dumps: Bool
        var same: Bool
    }

    static let usage = "usage: mcloud-bench database-vms [--engines postgresql,mysql,redis,clickhouse] [--rows N] [--parallel]"
    /// Commits whose archive lag is measured, each after a pause of its own so they fall at different points of
    /// `archive_timeout`'s cycle.
    static let lagSamples = [0, 7, 19]

    static func run(_ arguments: [String]) async {
        var rows = 100_000
        var engines = EngineSample.debian12.map(\.engine)
        var parallel = false
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--engines" where index + 1 < arguments.count:
                engines = arguments[index + 1].split(separator: ",").map(String.init)
                index += 1
            case "--rows" where index + 1 < arguments.count:
                guard let count = Int(arguments[index + 1]), count > 0 else {
                    print("mcloud-bench database-vms: --rows takes a whole number above 0, not '\(arguments[index + 1])'")
                    exit(1)
                }
                rows = count
                index += 1
            case "--parallel": parallel = true
            default:
                print(usage)
                exit(1)
            }
            index += 1
        }
        let samples = EngineSample.debian12(rows: rows).filter { engines.contains($0.engine) }
        do {
            let bed = try ContainerBed.load()
            let moto = try TestBedEnvironment.load(directory: ProcessInfo.processInfo.environment["MCLOUD_TESTBED_MOTO_DIR"] ?? "/tmp/mcloud-testbed/moto", start: "scripts/testbed/moto.sh start")
            var results: [Result] = []
            if parallel {
                results = try await withThrowingTaskGroup(of: Result.self) { group in
                    for sample in samples { group.addTask { try await measure(sample, bed: bed, moto: moto) } }
                    var collected: [Result] = []
                    for try await result in group { collected.append(result) }
                    return collected
                }
            } else {
                for sample in samples { results.append(try await measure(sample, bed: bed, moto: moto)) }
            }
            var table = Table(header: [
                "ENGINE", "BOOT TO READY (s)", "BACKUP (s)", "RESTORE (s)", "DATA (MB)", "RESTORE (MB/s)", "ARCHIVE LAG (s) MEDIAN/MAX", "DUMP (bytes)", "RESTORED ROWS",
            ])
            for result in results.sorted(by: { $0.sample.engine < $1.sample.engine }) {
                let megabytes = Double(result.dataBytes) / 1_000_000
                let lags = result.archiveLags.sorted()
                table.rows.append([
                    result.sample.description, format(result.ready), format(result.backup), format(result.restore), format(megabytes),
                    result.restore > 0 ? format(megabytes / result.restore) : "-",
                    lags.isEmpty ? "- (dumps)" : "\(format(lags[lags.count / 2]))/\(format(lags[lags.count - 1]))",
                    result.dumps ? String(result.bytes) : "- (archive)", result.same ? "same" : "DIFFER",
                ])
            }
            print("Database VMs on the container bed (Debian 12, packages from the bed's mirror), \(rows) rows each, \(parallel ? "all at once" : "one at a time"):")
            print(table.text)
            if results.contains(where: { !$0.same }) { exit(1) }
        } catch {
            print("mcloud-bench database-vms: \(error)")
            exit(1)
        }
    }

    static func format(_ seconds: Double) -> String { String(format: "%.1f", seconds) }

    static func measure(_ sample: EngineSample, bed: ContainerBed, moto: TestBedEnvironment) async throws -> Result {
        guard let recipe = EngineCatalog.recipe(engine: sample.engine, version: sample.version, family: .debian12) else {
            throw ContainerBed.Failure(description: "no recipe for \(sample)")
        }
        let run = UUID().uuidString.prefix(8).lowercased()
        let bucket = "mcloud-bench-\(sample.engine)-\(run)"
        let keys = ["AWS_ACCESS_KEY_ID": moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"], "AWS_SECRET_ACCESS_KEY": moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"]]
        var settings = keys.merging(["HOME": NSTemporaryDirectory(), "AWS_ENDPOINT_URL_S3": moto["MCLOUD_TEST_MOTO_URL"], "AWS_REGION": "us-east-1"]) { $1 }
        settings["AWS_PROFILE"] = nil
        let s3 = S3Client(client: AWSClient(configuration: try AWSConfigurationLoader.load(environment: settings)))
        try await s3.ensureBucket(.init(name: bucket))
        // A throwaway identity (the system generator is a cryptographic one): the dumps are encrypted to its
        // recipient and the archive's pass derived from it; the second VM restores with it.
        let identity = try AgeIdentity(secretKey: (0..<32).map { _ in UInt8.random(in: .min ... .max) })
        // PostgreSQL archives through moto's TLS front, as pgBackRest refuses plain HTTP; the others reach moto itself.
        let archives = PostgreSQLArchive.supports(recipe)
        let endpoint = archives ? moto["MCLOUD_TEST_MOTO_TLS_URL"] : moto["MCLOUD_TEST_MOTO_URL"]
        guard let port = endpoint.split(separator: ":").last.map(String.init), !port.isEmpty else {
            throw ContainerBed.Failure(description: "the moto bed names no \(archives ? "TLS front" : "endpoint"): run scripts/testbed/moto.sh start")
        }
        let leg = DatabaseVM.Bucket(name: bucket, region: "us-east-1", endpoint: endpoint, secrets: keys.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
        let server = "bench-\(run).\(sample.engine).0"
        var vm = DatabaseVM(
            address: "bench.container.DatabaseServer.\(server)", server: server, recipe: recipe, port: sample.port, disks: ["/dev/vdb"],
            backup: .init(schedule: "0 0 1 1 *", retentionDays: 7, bucket: leg)
        )
        var repository: PostgreSQLArchive.Repository?
        if archives {
            let authority = try String(contentsOfFile: moto["MCLOUD_TEST_MOTO_CA"], encoding: .utf8)
            repository = try PostgreSQLArchive.Repository(root: SecretRoot(identity: identity), application: "bench-\(run)", server: server, bucket: leg, certificateAuthority: authority)
            vm.archive = repository
        } else {
            vm.dumpRecipient = identity.recipient
        }
        let first = "bench-\(sample.engine)-\(run)-a", second = "bench-\(sample.engine)-\(run)-b"
        func clock() -> Double { Date().timeIntervalSince1970 }
        do {
            let booted = clock()
            try await bed.boot(first, userData: DatabaseUserData.render(vm), options: ["--reach", port])
            try await bed.wait(first)
            let ready = clock() - booted
            _ = try await bed.shell(first, sample.write)
            let written = try await bed.shell(first, sample.checksum)
            let dataBytes = Int(try await bed.shell(first, sample.size).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            var lags: [Double] = []
            if archives || recipe.logArchive != nil {
                for pause in lagSamples {
                    try await Task.sleep(for: .seconds(pause))
                    lags.append(archives ? try await archiveLag(bed, first, port: sample.port) : try await logLag(bed, first, s3: s3, bucket: bucket, server: server))
                }
            }
            let backupStarted = clock()
            _ = try await bed.shell(first, DatabaseUserData.backupScript)
            let backup = clock() - backupStarted
            let status = try await s3.getObject(bucket: bucket, key: DatabaseUserData.statusKey(server: vm.server))
            let size = BackupStatus(json: String(decoding: status, as: UTF8.self))?.size ?? 0
            let restore: Double
            if let repository {
                // The failover's path: the second server restores the archive's newest point as it boots, and
                // reports when the restore started and ended.
                let restoring = DatabaseVM(
                    address: "bench.container.DatabaseServer.\(server)-restore", server: "\(server)-restore", recipe: recipe, port: sample.port,
                    disks: ["/dev/vdb"], recoveryPoint: .init(bucket: leg, object: repository.path, archive: repository)
                )
                try await bed.boot(second, userData: DatabaseUserData.render(restoring), options: ["--reach", port])
                try await bed.wait(second)
                let report = try await s3.getObject(bucket: bucket, key: DatabaseUserData.restoreReportKey(server: restoring.server))
                guard let restored = RestoreReport(json: report), restored.error == nil else {
                    throw ContainerBed.Failure(description: "the restore reported: \(String(decoding: report, as: UTF8.self))")
                }
                restore = Double(restored.finishedAt - restored.startedAt)
            } else {
                try await bed.boot(second, userData: DatabaseUserData.render(vm), options: ["--reach", port])
                try await bed.wait(second)
                let restoreStarted = clock()
                _ = try await bed.shell(second, "umask 077 && printf '%s' \(DatabaseUserData.quoted(identity.keyFile)) >\(DumpEncryption.identityPath)")
                _ = try await bed.shell(second, DatabaseUserData.restoreScript)
                restore = clock() - restoreStarted
            }
            let same = try await bed.shell(second, sample.checksum) == written
            await bed.destroy(first)
            await bed.destroy(second)
            try await s3.deleteBucket(bucket)
            return Result(sample: sample, ready: ready, backup: backup, restore: restore, bytes: size, dataBytes: dataBytes, archiveLags: lags, dumps: !archives, same: same)
        } catch {
            await bed.destroy(first)
            await bed.destroy(second)
            try? await s3.deleteBucket(bucket)
            throw error
        }
    }

    /// Seconds from a commit to the end of archiving the WAL segment that holds it, as PostgreSQL's own archiver
    /// records them (`pg_stat_archiver`): a segment is archived once `archive_command` (pgBackRest's push) returned.
    static func archiveLag(_ bed: ContainerBed, _ name: String, port: Int) async throws -> Double {
        let psql = "runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -p \(port) -F ' '"
        _ = try await bed.shell(name, "\(psql) -c 'CREATE TABLE IF NOT EXISTS bench_ticks (at timestamptz NOT NULL)'")
        let commit = try await bed.shell(name, "\(psql) -c 'INSERT INTO bench_ticks VALUES (clock_timestamp()) RETURNING extract(epoch FROM at)' -c 'SELECT pg_walfile_name(pg_current_wal_lsn())'")
        let lines = commit.split(separator: "\n").map(String.init)
        guard lines.count == 2, let committedAt = Double(lines[0]) else { throw ContainerBed.Failure(description: "no commit time from \(name): \(commit)") }
        let segment = lines[1]
        for _ in 0..<180 {
            let archived = try await bed.shell(name, "\(psql) -c 'SELECT last_archived_wal, extract(epoch FROM last_archived_time) FROM pg_stat_archiver'")
            let fields = archived.split(whereSeparator: \.isWhitespace).map(String.init)
            // WAL file names of one timeline sort in the order they are written.
            if fields.count == 2, fields[0].count == segment.count, fields[0] >= segment, let at = Double(fields[1]) { return at - committedAt }
            try await Task.sleep(for: .seconds(1))
        }
        throw ContainerBed.Failure(description: "\(name) archived no segment past \(segment) in 180 s")
    }

    /// Seconds from a MariaDB commit to the moment the bucket's binary log status names a shipped log at or past the
    /// one that holds it: what a failover's replay would have of it. Log names of one server sort in the order they are
    /// written (a six-digit sequence).
    static func logLag(_ bed: ContainerBed, _ name: String, s3: S3Client, bucket: String, server: String) async throws -> Double {
        let commit = try await bed.shell(name, #"mariadb -N -e "CREATE DATABASE IF NOT EXISTS bench; CREATE TABLE IF NOT EXISTS bench.ticks (at DATETIME(6) NOT NULL); INSERT INTO bench.ticks VALUES (NOW(6)); SELECT UNIX_TIMESTAMP(MAX(at)) FROM bench.ticks; SHOW MASTER STATUS""#)
        let lines = commit.split(separator: "\n").map(String.init)
        guard lines.count == 2, let committedAt = Double(lines[0]), let log = lines[1].split(separator: "\t").first.map(String.init) else {
            throw ContainerBed.Failure(description: "no commit time and binary log from \(name): \(commit)")
        }
        for _ in 0..<180 {
            if let object = try? await s3.getObject(bucket: bucket, key: BinaryLogArchive.statusKey(server: server)),
               let newest = BinaryLogArchive.Status(json: String(decoding: object, as: UTF8.self))?.newest,
               let shipped = newest.split(separator: "/").last.map(String.init), shipped.count == log.count, shipped >= log {
                return Date().timeIntervalSince1970 - committedAt
            }
            try await Task.sleep(for: .seconds(1))
        }
        throw ContainerBed.Failure(description: "\(name) shipped no binary log past \(log) in 180 s")
    }
}
