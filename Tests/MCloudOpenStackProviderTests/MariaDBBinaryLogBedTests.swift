import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStackProvider
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing

/// MariaDB's binary log in the DR leg, for real (docs/dr.md, "MariaDB: binary logs"): the OpenStack provider makes a
/// MariaDB primary whose DR bucket is on moto, the container bed boots the user data it sent, the VM's own job dumps
/// once, then a row a second goes in while `mcloud-binlog` ships the closed logs every 30 s. The primary is killed
/// (SIGKILL, no last flush); a fresh server given the leg's identity loads the dump and replays the shipped logs: the
/// test counts the rows lost and the RPO from the commit times (at most 60 s, the catalog's bound). Another restores
/// to a moment between two known rows and must hold exactly the rows up to it. No object of the server in the bucket
/// holds a row in plain text. Fails, never skips, without the beds (openstack.sh up, moto.sh start, container.sh start).
@Suite(.serialized, .timeLimit(.minutes(30))) struct MariaDBBinaryLogBedTests {
    static let marker = "binlog-row-marker"

    @Test("a killed MariaDB primary's dump and shipped binary logs restore with RPO <= 60 s, and to a moment exactly")
    func binaryLogsRestoreTheLatestPointAndAMoment() async throws {
        let beds = try Beds()
        let test = try #require(EngineSample.debian12.first { $0.engine == "mysql" })
        let recipe = try #require(EngineCatalog.recipe(engine: test.engine, version: test.version, family: .debian12))
        let run = UUID().uuidString.prefix(8).lowercased()
        let bucket = "mcloud-binlog-\(run)", server = "bin-\(run).orders.0"
        let made = try await beds.makePrimary(server, test: test, bucket: bucket)
        let primary = "bin-\(run)-a", latest = "bin-\(run)-b", moment = "bin-\(run)-c"
        func cleanUp() async throws { try await beds.remove(made, containers: [primary, latest, moment]) }
        do {
            let userData = try await beds.userData(ofServer: made.server.observed.providerID)
            #expect(userData.contains("MCLOUD_LOG_ARCHIVE='1'") && userData.contains(BinaryLogArchive.script), "the primary does not ship its binary log")
            try await beds.container.boot(primary, userData: userData, options: ["--reach", "24566"])
            try await beds.container.wait(primary)
            let sql = "mariadb -N -B"
            _ = try await beds.container.shell(primary, "\(sql) -e 'CREATE DATABASE orders; CREATE TABLE orders.ticks (id INT PRIMARY KEY, note TEXT, at DATETIME(6) NOT NULL)'")
            let backup = try await beds.container.shell(primary, "mcloud-backup")
            #expect(backup.contains(".sql.gz.age,"), "\(backup)")

            // A row a second, each with its commit time as the primary's clock gave it.
            var load = WriteLoad()
            for id in 1...75 {
                let answer = try await beds.container.shell(
                    primary, "\(sql) -e \"INSERT INTO orders.ticks VALUES (\(id), '\(Self.marker) \(id)', NOW(6)); SELECT UNIX_TIMESTAMP(at) FROM orders.ticks WHERE id = \(id)\""
                )
                try load.acknowledge(id, answer: answer)
                try await Task.sleep(for: .seconds(1))
            }
            let shipped = try #require(try await beds.s3.objectIfExists(bucket: bucket, key: BinaryLogArchive.statusKey(server: server)))
            #expect(String(decoding: shipped, as: UTF8.self).contains(#""error": null"#), "\(String(decoding: shipped, as: UTF8.self))")

            // Killed: no flush, no last push.
            _ = try await beds.container.shell(primary, "systemctl stop mcloud-binlog.timer cron && systemctl kill -s KILL \(recipe.service)")
            try await Task.sleep(for: .seconds(2))

            // Every dump and log is age ciphertext; no object of the server holds a row.
            let objects = try await beds.s3.listObjects(bucket: bucket, prefix: "\(server)/")
            let logs = objects.filter { $0.hasPrefix(BinaryLogArchive.prefix(server: server)) && $0.hasSuffix(".age") }
            #expect(logs.count >= 2, "\(objects)")
            var hits: [String] = []
            for key in objects {
                let data = Data(try await beds.s3.getObject(bucket: bucket, key: key))
                let plain = data.range(of: Data(Self.marker.utf8)) != nil || data.range(of: Data("ticks".utf8)) != nil
                if plain || (key.hasSuffix(".age") && !data.starts(with: Data("\(DumpEncryption.header)\n".utf8))) { hits.append(key) }
            }
            #expect(hits.isEmpty, "objects that are not ciphertext: \(hits)")

            // Two fresh servers from the dump and the logs: the newest point, and the moment between rows 20 and 21.
            let dump = try #require(objects.first { BackupKey.isWellFormed($0) })
            let keys = beds.moto.backupKeys
            let leg = DatabaseVM.Bucket(
                name: bucket, region: "us-east-1", endpoint: beds.moto["MCLOUD_TEST_MOTO_URL"],
                secrets: [("AWS_ACCESS_KEY_ID", keys.keyID), ("AWS_SECRET_ACCESS_KEY", keys.secret)]
            )
            let identity = try beds.dumpIdentity(server: server, bucket: bucket)
            let target = BackupStatus.text(load.secondAfter(row: 20))
            func restoring(_ name: String, target: String?) -> String {
                DatabaseUserData.render(DatabaseVM(
                    address: "openstack.bed.DatabaseServer.\(name)", server: name, recipe: recipe, port: test.port, disks: ["/dev/vdb"],
                    recoveryPoint: DatabaseVM.RecoveryPoint(bucket: leg, object: dump, targetTime: target, drill: target != nil, identity: identity)
                ))
            }
            async let bootLatest: Void = beds.container.boot(latest, userData: restoring("\(server)-latest", target: nil), options: ["--reach", "24566"])
            async let bootMoment: Void = beds.container.boot(moment, userData: restoring("\(server)-moment", target: target), options: ["--reach", "24566"])
            _ = try await (bootLatest, bootMoment)
            async let waitLatest: Void = beds.container.wait(latest)
            async let waitMoment: Void = beds.container.wait(moment)
            _ = try await (waitLatest, waitMoment)

            let restored = try await beds.container.shell(latest, "\(sql) -e 'SELECT COUNT(*), MAX(id), UNIX_TIMESTAMP(MAX(at)) FROM orders.ticks'")
            try load.expectRestored(restored, within: Double(2 * BinaryLogArchive.interval), label: "binlog bed")

            let exact = try await beds.container.shell(moment, "\(sql) -e 'SELECT GROUP_CONCAT(id ORDER BY id) FROM orders.ticks'")
            #expect(exact == (1...20).map(String.init).joined(separator: ",") + "\n", "restored to \(target): \(exact)")
            #expect(try await beds.container.shell(moment, "test -e \(BinaryLogArchive.script) && echo ships || echo none") == "none\n", "a drill's server ships into the leg")
        } catch {
            await beds.container.printCloudInitOutput([primary, latest, moment], last: 4000)
            try await cleanUp()
            throw error
        }
        try await cleanUp()
    }
}
