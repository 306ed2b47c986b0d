import Foundation
import MCloudAWS
import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStackProvider
import MCloudProvider
import MCloudSecrets
import MCloudTestSupport
import Testing

/// No dump leaves a database VM in plain text, for real: the OpenStack provider makes a Redis primary whose DR bucket
/// is on moto, the container bed boots the user data it sent (the leg's recipient, no identity), rows with a marker
/// go in and the VM's own job backs up. Every backup object of the server in the bucket must begin with age's header,
/// and no object of the server may hold a marker or the RDB header. A fresh server given the leg's identity in its
/// 0600 key file, as a failover's is, restores the rows; one given another leg's identity fails with a clear error,
/// reported beside the backup. Fails, never skips, without the beds (openstack.sh up, moto.sh start, container.sh
/// start with age in its mirror).
@Suite(.serialized, .timeLimit(.minutes(30))) struct DumpEncryptionBedTests {
    /// Text each row holds, which no object in the bucket may show.
    static let marker = "dump-row-marker"

    @Test("a Redis primary uploads only age ciphertext; the leg's identity restores it, another leg's is refused")
    func dumpsLeaveEncryptedAndOnlyTheLegsIdentityRestoresThem() async throws {
        let beds = try Beds()
        let test = try #require(EngineSample.debian12.first { $0.engine == "redis" })
        let recipe = try #require(EngineCatalog.recipe(engine: test.engine, version: test.version, family: .debian12))
        let run = UUID().uuidString.prefix(8).lowercased()
        let bucket = "mcloud-age-\(run)", server = "age-\(run).cache.0"
        let made = try await beds.makePrimary(server, test: test, bucket: bucket)
        let created = made.server.observed
        let primary = "age-\(run)-a", restoring = "age-\(run)-b", refused = "age-\(run)-c"
        func cleanUp() async throws { try await beds.remove(made, containers: [primary, restoring, refused]) }
        do {
            // The primary holds the leg's recipient and nothing that decrypts.
            let identity = try beds.dumpIdentity(server: server, bucket: bucket)
            let userData = try await beds.userData(ofServer: created.providerID)
            #expect(userData.contains("MCLOUD_BACKUP_RECIPIENT='\(identity.recipient.encoded)'"), "the primary has not the leg's recipient")
            #expect(!userData.contains("AGE-SECRET-KEY-"), "the primary's user data holds an age identity")

            try await beds.container.boot(primary, userData: userData, options: ["--reach", "24566"])
            try await beds.container.wait(primary)
            _ = try await beds.container.shell(primary, test.write)
            _ = try await beds.container.shell(primary, "for i in $(seq 1 20); do echo \"SET marker:$i \(Self.marker)-$i\"; done | redis-cli -p \(test.port) >/dev/null")
            let written = try await beds.container.shell(primary, test.checksum)
            // The scan below would see a plain dump: the engine's own dump holds the markers.
            #expect(try await beds.container.shell(primary, "OUT=/tmp/plain.rdb mcloud-engine dump && grep -c '\(Self.marker)' /tmp/plain.rdb && rm /tmp/plain.rdb") != "0\n")
            let backup = try await beds.container.shell(primary, "mcloud-backup")
            #expect(backup.contains("mcloud-backup: \(server)/") && backup.contains(".rdb.age,"), "\(backup)")
            #expect(try await beds.container.shell(primary, "find /var/backups/mcloud -type f | wc -l") == "0\n", "a dump stayed on the primary")

            // Every backup object is age ciphertext; no object of the server holds a row or the RDB header.
            let objects = try await beds.s3.listObjects(bucket: bucket, prefix: "\(server)/")
            let backups = objects.filter { BackupKey.isWellFormed($0) }
            #expect(backups.count == 1 && objects.count == 2, "\(objects)")
            var hits: [String] = []
            for key in objects {
                let data = Data(try await beds.s3.getObject(bucket: bucket, key: key))
                let found = [Self.marker, "REDIS0", "value-1"].filter { data.range(of: Data($0.utf8)) != nil }
                if !found.isEmpty || (backups.contains(key) && !data.starts(with: Data("\(DumpEncryption.header)\n".utf8))) {
                    hits.append("\(key): \(found) first bytes \(Array(data.prefix(8)))")
                }
            }
            #expect(hits.isEmpty, "objects that are not ciphertext: \(hits)")
            let object = try #require(backups.first)
            let head = try #require(try await beds.s3.headObject(bucket: bucket, key: object))
            #expect(head.metadata["size"] == String(head.size), "the recorded size is not the uploaded object's")

            // Two fresh servers restore it at boot, as a failover's would: one with the leg's identity, one with another leg's.
            let keys = beds.moto.backupKeys
            let leg = DatabaseVM.Bucket(
                name: bucket, region: "us-east-1", endpoint: beds.moto["MCLOUD_TEST_MOTO_URL"],
                secrets: [("AWS_ACCESS_KEY_ID", keys.keyID), ("AWS_SECRET_ACCESS_KEY", keys.secret)]
            )
            let wrong = try beds.dumpIdentity(server: server, bucket: "\(bucket)-other")
            func restoringServer(_ name: String, _ key: AgeIdentity) -> String {
                DatabaseUserData.render(DatabaseVM(
                    address: "openstack.bed.DatabaseServer.\(name)", server: name, recipe: recipe, port: test.port, disks: ["/dev/vdb"],
                    recoveryPoint: DatabaseVM.RecoveryPoint(bucket: leg, object: object, identity: key)
                ))
            }
            let restoringName = "age-\(run).cache.1", refusedName = "age-\(run).cache.2"
            async let bootRestoring: Void = beds.container.boot(restoring, userData: restoringServer(restoringName, identity), options: ["--reach", "24566"])
            async let bootRefused: Void = beds.container.boot(refused, userData: restoringServer(refusedName, wrong), options: ["--reach", "24566"])
            _ = try await (bootRestoring, bootRefused)
            try await beds.container.wait(restoring)
            #expect(try await beds.container.shell(restoring, test.checksum) == written)
            let report = try #require(try await beds.s3.objectIfExists(bucket: bucket, key: DatabaseUserData.restoreReportKey(server: restoringName)))
            #expect(String(decoding: report, as: UTF8.self).contains(#""error": null"#), "\(String(decoding: report, as: UTF8.self))")
            try Self.expectIdentityOnlyInItsKeyFile(identity, in: beds.container.upper(restoring))

            // The wrong identity: cloud-init fails, the report says so, the log says why, and no row is loaded.
            #expect(!(await Self.finishes(refused, beds.container)), "a server with another leg's identity finished its setup")
            let refusal = try #require(try await beds.s3.objectIfExists(bucket: bucket, key: DatabaseUserData.restoreReportKey(server: refusedName)))
            #expect(String(decoding: refusal, as: UTF8.self).contains(#""error": "mcloud-restore exited 1""#), "\(String(decoding: refusal, as: UTF8.self))")
            let log = try await beds.container.run(["logs", refused, "cloud-init"]).stdout
            #expect(log.contains("cannot be decrypted with the identity in \(DumpEncryption.identityPath), which is not the one of this DR leg"), "\(log.suffix(2000))")
            #expect(try await beds.container.shell(refused, "redis-cli -p \(test.port) dbsize") == "0\n")
        } catch {
            await beds.container.printCloudInitOutput([primary, restoring, refused])
            try await cleanUp()
            throw error
        }
        try await cleanUp()
    }

    /// Whether cloud-init in `name` finished cleanly: `wait` throws when it finished with an error.
    static func finishes(_ name: String, _ container: ContainerBed) async -> Bool {
        do {
            try await container.wait(name)
            return true
        } catch {
            return false
        }
    }

    /// The identity's text is only in the root-only 0600 key file (and cloud-init's own root-only copy of the user
    /// data), never in a log or a world-readable file.
    static func expectIdentityOnlyInItsKeyFile(_ identity: AgeIdentity, in upper: String) throws {
        let holding = DatabaseVMBedTests.filesHolding(identity.encoded, in: upper)
        let keyFile = String(DumpEncryption.identityPath.dropFirst())
        #expect(holding.contains(keyFile) && holding.allSatisfy { $0 == keyFile || $0.hasPrefix("var/lib/cloud/") }, "\(holding)")
    }
}
