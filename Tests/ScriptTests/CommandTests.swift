import Foundation
import MCloudTestSupport
import Testing

/// The bed tests' programs end: one that would run on (a query waiting for a standby that is gone) is killed at its
/// time-out or when its test is cancelled, and the test fails instead of holding the whole run until CI's limit.
@Suite struct CommandTests {
    /// A shell that writes its process ID to a file and becomes a sleep of an hour: what never ends on its own.
    static func endless() -> (arguments: [String], pidFile: String) {
        let file = NSTemporaryDirectory() + "command-\(UUID().uuidString).pid"
        return (["-c", "echo $$ >\(file); exec sleep 3600"], file)
    }

    /// Whether the process the file names is gone (no such process, or a zombie no one has reaped).
    static func ended(_ pidFile: String) throws -> Bool {
        let pid = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return true }
        return status.contains("State:\tZ")
    }

    @Test func aProgramPastItsTimeOutIsKilledAndFailsItsCaller() async throws {
        let (arguments, pidFile) = Self.endless()
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        await #expect(throws: Command.TimedOut.self) {
            _ = try await Command.run("/bin/sh", arguments, timeout: 1)
        }
        #expect(try Self.ended(pidFile))
    }

    @Test func aCancelledTestKillsItsProgram() async throws {
        let (arguments, pidFile) = Self.endless()
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        // Were the kill on cancellation missing, the time-out would end it, and the error would say so.
        let task = Task { try await Command.run("/bin/sh", arguments, timeout: 600) }
        while !FileManager.default.fileExists(atPath: pidFile) { try await Task.sleep(for: .milliseconds(50)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(try Self.ended(pidFile))
    }

    @Test func aProgramThatEndsInTimeGivesItsOutputAndExitCode() async throws {
        let result = try await Command.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], timeout: 30)
        #expect(result.exitCode == 3 && result.stdout == "out\n" && result.stderr == "err\n")
    }
}

/// What a run stopped at its limit prints (scripts/test.sh): the tests its log shows started and not ended, in the
/// order they started; parameterized cases, passed and failed tests, and the run itself are not among them.
@Suite struct UnfinishedTestsTests {
    @Test func theTestsStartedAndNeverEndedAreNamedInOrder() async throws {
        let log = """
            ◇ Test run started.
            ◇ Suite StandbyBedTests started.
            ◇ Test aSwitchover() started.
            ◇ Test "a killed primary's archive restores" started.
            ◇ Test table(_:) started.
            ◇ Test case passing 1 argument x → 1 to table(_:) started.
            ◇ Test fails() started.
            ◇ Test stuck() started.
            ✔ Test table(_:) with 4 test cases passed after 2.0 seconds.
            ✘ Test fails() recorded an issue at X.swift:1:1: Expectation failed
            ✘ Test fails() failed after 3.1 seconds with 1 issue.
            ✔ Test "a killed primary's archive restores" passed after 9.0 seconds.

            """
        let file = NSTemporaryDirectory() + "unfinished-\(UUID().uuidString).log"
        try Data(log.utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try await ScriptTests.bash("scripts/unfinished-tests.sh \(file)")
        #expect(run.exitCode == 0 && run.stdout == "aSwitchover()\nstuck()\n", "\(run.output)")
        let usage = try await ScriptTests.bash("scripts/unfinished-tests.sh")
        #expect(usage.exitCode == 1 && usage.stderr == "usage: scripts/unfinished-tests.sh LOG\n")
    }
}
