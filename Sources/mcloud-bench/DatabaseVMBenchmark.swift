import Foundation
import MCloudAWS
import MCloudDatabaseEngines
import MCloudSecrets
import MCloudTestSupport

/// `mcloud-bench database-vms [--engines postgresql,mysql,redis,clickhouse] [--parallel]`: each engine Debian 12
/// ships, booted for real in the container bed (scripts/testbed/container.sh) from the engine catalog's user data
/// with a DR bucket on the moto bed: seconds from boot to cloud-init done with the engine answering, for one backup
/// (dump, upload with size and SHA-256, retention, status object) and for the restore into a second, fresh instance,
/// which must then hold the same rows. One engine at a time unless `--parallel`.
enum DatabaseVMBenchmark {
    struct Result {
        var sample: EngineSample
        var ready: Double
        var backup: Double
        var restore: Double
        var bytes: Int
        var same: Bool
    }

    static func run(_ arguments: [String]) async {
        var engines = EngineSample.debian12.map(\.engine)
        var parallel = false
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--engines" where index + 1 < arguments.count:
                engines = arguments[index + 1].split(separator: ",").map(String.init)
                index += 1
            case "--parallel": parallel = true
            default:
                print("usage: mcloud-bench database-vms [--engines postgresql,mysql,redis,clickhouse] [--parallel]")
                exit(1)
            }
            index += 1
        }
        let samples = EngineSample.debian12.filter { engines.contains($0.engine) }
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
            var table = Table(header: ["ENGINE", "BOOT TO READY (s)", "BACKUP (s)", "RESTORE (s)", "DUMP (bytes)", "RESTORED ROWS"])
            for result in results.sorted(by: { $0.sample.engine < $1.sample.engine }) {
                table.rows.append([
                    result.sample.description, format(result.ready), format(result.backup), format(result.restore), String(result.bytes),
                    result.same ? "same" : "DIFFER",
                ])
            }
            print("Database VMs on the container bed (Debian 12, packages from the bed's mirror), \(parallel ? "all at once" : "one at a time"):")
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
        // recipient, and the second VM decrypts with it.
        let identity = try AgeIdentity(secretKey: (0..<32).map { _ in UInt8.random(in: .min ... .max) })
        var vm = DatabaseVM(
            address: "bench.container.DatabaseServer.bench-\(run).\(sample.engine).0", server: "bench-\(run).\(sample.engine).0", recipe: recipe,
            port: sample.port, disks: ["/dev/vdb"],
            backup: .init(schedule: "0 0 1 1 *", retentionDays: 7, bucket: .init(
                name: bucket, region: "us-east-1", endpoint: moto["MCLOUD_TEST_MOTO_URL"],
                secrets: keys.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
            ))
        )
        vm.dumpRecipient = identity.recipient
        let userData = DatabaseUserData.render(vm)
        let first = "bench-\(sample.engine)-\(run)-a", second = "bench-\(sample.engine)-\(run)-b"
        func clock() -> Double { Date().timeIntervalSince1970 }
        do {
            let booted = clock()
            try await bed.boot(first, userData: userData, options: ["--reach", "24566"])
            try await bed.wait(first)
            let ready = clock() - booted
            _ = try await bed.shell(first, sample.write)
            let written = try await bed.shell(first, sample.checksum)
            let backupStarted = clock()
            _ = try await bed.shell(first, DatabaseUserData.backupScript)
            let backup = clock() - backupStarted
            let status = try await s3.getObject(bucket: bucket, key: DatabaseUserData.statusKey(server: vm.server))
            let size = BackupStatus(json: String(decoding: status, as: UTF8.self))?.size ?? 0
            try await bed.boot(second, userData: userData, options: ["--reach", "24566"])
            try await bed.wait(second)
            let restoreStarted = clock()
            _ = try await bed.shell(second, "umask 077 && printf '%s' \(DatabaseUserData.quoted(identity.keyFile)) >\(DumpEncryption.identityPath)")
            _ = try await bed.shell(second, DatabaseUserData.restoreScript)
            let restore = clock() - restoreStarted
            let same = try await bed.shell(second, sample.checksum) == written
            await bed.destroy(first)
            await bed.destroy(second)
            try await s3.deleteBucket(bucket)
            return Result(sample: sample, ready: ready, backup: backup, restore: restore, bytes: size, same: same)
        } catch {
            await bed.destroy(first)
            await bed.destroy(second)
            try? await s3.deleteBucket(bucket)
            throw error
        }
    }
}
