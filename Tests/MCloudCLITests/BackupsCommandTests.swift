import Foundation
import MCloudAWS
import MCloudDatabaseEngines
import MCloudProvider
import MCloudState
import Testing
@testable import MCloudCLI

/// `mcloud backups` on moto: the DR legs of an applied AWS application, empty, then one with a backup older than
/// twice its schedule and one with a fresh backup, each object read back with its size and recorded SHA-256.
@Suite(.serialized, .enabled(if: AWSWorkspace.available, "start scripts/testbed/moto.sh to run the AWS end-to-end tests"))
struct BackupsCommandTests {
    /// `20261201T100000Z`, `seconds` ago.
    static func stamp(_ secondsAgo: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: Date().addingTimeInterval(-Double(secondsAgo)))
    }

    /// `backups` takes no `--target`, which the workspace's runs add.
    static func backups(_ workspace: AWSWorkspace, _ arguments: [String]) async -> Run {
        let options = ["-f", "\(workspace.folder)/app", "--providers", "\(workspace.folder)/providers", "--state", "file://\(workspace.statePath)"]
        return await mcloudRun(["backups"] + options + arguments, environment: workspace.environment)
    }

    @Test func anEmptyLegSaysSoAStaleOneWarnsAndAFreshOneDoesNot() async throws {
        let workspace = try AWSWorkspace()
        let applied = await workspace.run("apply", ["--auto-approve"])
        #expect(applied.exitCode == 0, "\(applied.stdout)\(applied.stderr)")

        let empty = await Self.backups(workspace, ["--detailed-exitcode"])
        #expect(empty.exitCode == 2, "\(empty.stdout)\(empty.stderr)")
        #expect(empty.stdout.components(separatedBy: "  ! no backups in this leg yet\n").count == 3, "\(empty.stdout)")
        #expect(empty.stderr == "warning: 2 DR legs cannot be relied on\n")

        let state = try #require(try FileStateBackend(path: workspace.statePath).read())
        let buckets = state.resources.filter { $0.address.kind == .backupBucket }.map(\.providerID).sorted()
        #expect(buckets.count == 2, "\(buckets)")
        let s3 = S3Client(client: AWSClient(configuration: AWSConfiguration(credentials: workspace.credentials, region: "eu-west-1", endpointURL: workspace.url)))
        let dump = Array("a dump".utf8)
        let sha = "6f7c1f54a1e0e4c0b4b0f0a2f1f3c3d9e0a1b2c3d4e5f60718293a4b5c6d7e8f"
        // Three days old against a schedule of at most a day: stale. An hour old: fresh. The status object is no backup.
        try await s3.putObject(bucket: buckets[0], key: "server-0/\(Self.stamp(3 * 86400)).dump", body: dump, metadata: ["sha256": sha, "size": "6"])
        try await s3.putObject(bucket: buckets[0], key: "server-0/status.json", body: Array("{}".utf8), contentType: "application/json")
        try await s3.putObject(bucket: buckets[1], key: "server-1/\(Self.stamp(3600)).dump", body: dump, metadata: ["sha256": sha, "size": "6"])

        let listed = await Self.backups(workspace, ["--detailed-exitcode"])
        #expect(listed.exitCode == 2, "\(listed.stdout)\(listed.stderr)")
        #expect(listed.stderr == "warning: 1 DR leg cannot be relied on\n")
        #expect(listed.stdout.contains("  ! the latest backup is 3d old, more than twice the schedule's "), "\(listed.stdout)")
        #expect(listed.stdout.contains("   6  6f7c1f54a1e0   1h  server-1/"), "\(listed.stdout)")
        #expect(listed.stdout.contains("   6  6f7c1f54a1e0   3d  server-0/"), "\(listed.stdout)")
        #expect(!listed.stdout.contains("status.json"))
        #expect(!listed.stdout.contains("no backups in this leg yet"))

        let destroyed = await workspace.run("destroy", ["--auto-approve"])
        #expect(destroyed.exitCode == 0, "\(destroyed.stdout)\(destroyed.stderr)")
    }

    /// The primary of a cell with standbys writes what it sees of them beside its backups; `backups` shows each
    /// standby with its lag and flags a leg whose primary sees fewer standbys than it has.
    @Test func aLegShowsItsPrimarysStandbysAndFlagsOneThatDoesNotFollow() async throws {
        let workspace = try AWSWorkspace()
        let applied = await workspace.run("apply", ["--auto-approve"])
        #expect(applied.exitCode == 0, "\(applied.stdout)\(applied.stderr)")
        let state = try #require(try FileStateBackend(path: workspace.statePath).read())
        // The leg of the VM database (Redis); the managed one's backups are RDS's.
        let bucket = try #require(state.resources.first { $0.address.kind == .backupBucket && BackupHealth.Watch(bucket: $0.attributes) != nil })
        let server = try #require(BackupHealth.Watch(bucket: bucket.attributes)?.server)
        let s3 = S3Client(client: AWSClient(configuration: AWSConfiguration(credentials: workspace.credentials, region: "eu-west-1", endpointURL: workspace.url)))
        let dump = Array("a dump".utf8)
        let sha = "6f7c1f54a1e0e4c0b4b0f0a2f1f3c3d9e0a1b2c3d4e5f60718293a4b5c6d7e8f"
        try await s3.putObject(bucket: bucket.providerID, key: "\(server)/\(Self.stamp(600)).dump", body: dump, metadata: ["sha256": sha, "size": "6"])
        let now = BackupStatus.text(Int(Date().timeIntervalSince1970))
        func report(_ standbys: String) async throws {
            let json = #"{"server": "\#(server)", "at": "\#(now)", "expected": 1, "standbys": [\#(standbys)], "error": null}"#
            try await s3.putObject(bucket: bucket.providerID, key: DatabaseUserData.replicationKey(server: server), body: Array(json.utf8), contentType: "application/json")
        }
        let cell = BackupsCommand.cellName(of: bucket)

        try await report("")
        let missing = await Self.backups(workspace, [cell, "--detailed-exitcode"])
        #expect(missing.exitCode == 2, "\(missing.stdout)\(missing.stderr)")
        #expect(missing.stdout.contains("    none connected\n  ! 0 of 1 standbys of \(server) follow it\n"), "\(missing.stdout)")
        #expect(!missing.stdout.contains("replication.json"), "the report is listed as a backup: \(missing.stdout)")

        try await report(#"{"name": "standby_1", "state": "streaming", "sync": "quorum", "lagSeconds": 1.5, "lagBytes": 96}"#)
        let following = await Self.backups(workspace, [cell, "--detailed-exitcode"])
        #expect(following.exitCode == 0, "\(following.stdout)\(following.stderr)")
        #expect(following.stdout.contains("  standby_1  streaming  quorum  1.5 s              96\n"), "\(following.stdout)")
        #expect(!following.stdout.contains("  ! "), "\(following.stdout)")

        let destroyed = await workspace.run("destroy", ["--auto-approve"])
        #expect(destroyed.exitCode == 0, "\(destroyed.stdout)\(destroyed.stderr)")
    }

    @Test func aCellWithoutALegIsAnErrorWithTheNearestName() async throws {
        let workspace = try AWSWorkspace()
        let run = await Self.backups(workspace, ["no-such-db"])
        #expect(run.exitCode == 1)
        #expect(run.stderr.hasPrefix("error: the state records no DR leg of 'no-such-db'"))
    }
}
