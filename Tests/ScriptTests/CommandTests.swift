import Foundation
import MCloudTestSupport
import Testing

/// The bed tests' programs end: one that would run on (a query waiting for a standby that is gone) is killed at its
/// time-out or when its test is cancelled, and the test fails instead of holding the whole run until CI's limit.
@Suite struct CommandTests {
    @Test func aProgramPastItsTimeOutIsKilledAndFailsItsCaller() async throws {
        let started = Date()
        await #expect(throws: Command.TimedOut.self) {
            _ = try await Command.run("/bin/sleep", ["60"], timeout: 1)
        }
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test func aCancelledTestKillsItsProgram() async throws {
        let started = Date()
        let task = Task { try await Command.run("/bin/sleep", ["60"]) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(Date().timeIntervalSince(started) < 30)
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
