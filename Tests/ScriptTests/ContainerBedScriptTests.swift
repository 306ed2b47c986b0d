import Foundation
import MCloudTestSupport
import Testing

/// How the container bed tells a running instance from a stopped one (scripts/testbed/container.sh): by the
/// systemd-nspawn it recorded, only while that process runs this instance's root, and its PID 1. A recycled PID is
/// never taken for the container, and "not running" says what each part of the reading saw; and an instance's data
/// disk is detached when it is destroyed, even after its file was removed. Fails, never skips, without the bed.
struct ContainerBedScriptTests {
    @Test func aRecycledPIDIsNotTakenForTheContainerAndNotRunningSaysWhatWasRead() async throws {
        let bed = try ContainerBed.load()
        let name = "pid-check-\(UUID().uuidString.prefix(6).lowercased())"
        try await bed.boot(name, userData: "#cloud-config\n{}\n", options: ["--no-disk"])
        let pidFile = "\(bed.environment["MCLOUD_TEST_CONTAINER_STATE"])/instances/\(name)/nspawn.pid"
        let stranger = Process()
        stranger.executableURL = URL(fileURLWithPath: "/bin/sleep")
        stranger.arguments = ["600"]
        var failure: (any Error)?
        do {
            #expect(try await bed.exec(name, ["true"]).succeeded, "a running instance was not found")
            let recorded = try String(contentsOfFile: pidFile, encoding: .utf8)
            try stranger.run()
            try "\(stranger.processIdentifier)\n".write(toFile: pidFile, atomically: true, encoding: .utf8)
            let recycled = try await bed.exec(name, ["true"])
            #expect(!recycled.succeeded && recycled.stderr.contains("is not running (systemd-nspawn \(stranger.processIdentifier) (not of this root), children [], pgrep -P []"), "\(recycled.output)")
            try recorded.write(toFile: pidFile, atomically: true, encoding: .utf8)
            #expect(try await bed.exec(name, ["true"]).succeeded, "the instance was not found again with its own PID")

            try await bed.run(["stop", name])
            let stopped = try await bed.exec(name, ["true"])
            #expect(!stopped.succeeded && stopped.stderr.contains("is not running (no nspawn.pid;"), "\(stopped.output)")
        } catch {
            failure = error
        }
        if stranger.isRunning { kill(stranger.processIdentifier, SIGKILL) }
        await bed.destroy(name)
        if let failure { throw failure }
    }

    /// Regression: a test that removed its disk file before destroying the instance left the loop device attached
    /// for good (losetup names the file "FILE (deleted)", which the teardown did not take for the instance's).
    @Test func aDiskFileRemovedBeforeTheInstanceIsDestroyedLeavesNoLoopDevice() async throws {
        let bed = try ContainerBed.load()
        let name = "loop-check-\(UUID().uuidString.prefix(6).lowercased())"
        let disk = NSTemporaryDirectory() + "\(name).img"
        #expect(FileManager.default.createFile(atPath: disk, contents: nil))
        try FileHandle(forWritingAtPath: disk).map { handle in
            try handle.truncate(atOffset: 64 << 20)
            try handle.close()
        }
        func attached() async throws -> String {
            try await Command.run("/usr/sbin/losetup", ["-nO", "NAME,BACK-FILE"]).stdout.split(separator: "\n").filter { $0.contains(disk) }.joined(separator: "\n")
        }
        try await bed.boot(name, userData: "#cloud-config\n{}\n", options: ["--disk-file", disk])
        #expect(try await !attached().isEmpty, "the disk was never attached")
        try FileManager.default.removeItem(atPath: disk)
        #expect(try await attached().contains("(deleted)"))
        await bed.destroy(name)
        let left = try await attached()
        #expect(left.isEmpty, "left attached: \(left)")
    }
}
