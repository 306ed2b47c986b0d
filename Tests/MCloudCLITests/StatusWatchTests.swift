import Foundation
import MCloudCore
@testable import MCloudCLI
import Synchronization
import Testing

/// `status --watch` in-process on the ledger's memory clouds (`StatusLab`), its waits on a `WatchClock` that makes a
/// change to the clouds at each wait and then stops the watch as a signal would, so no test sleeps. The signal itself
/// is sent to the real binary in StatusBedTests.
@Suite struct StatusWatchTests {
    /// 2027-01-15T08:00:00Z, the lab's clock when the watch starts, and 5 s (the interval) per reading after it.
    static func stamp(_ lab: StatusLab, after readings: Int) -> String {
        StatusWatch.stamp(lab.lab.clock.nowSeconds + 5 * readings)
    }

    @Test func aPipeGetsTheFirstReadingAndEachChangeButNotAnUnchangedOne() async throws {
        let lab = try await StatusLab()
        let first = Self.stamp(lab, after: 0), third = Self.stamp(lab, after: 2)
        // Reading 1 healthy; reading 2 the same; reading 3 with no replica ready; then the watch is stopped.
        let clock = WatchClock(lab.lab.clock, [{}, { lab.catalog.ready = 0 }])
        let watch = await lab.status(["--watch"], clock: clock)
        #expect(watch.exitCode == 0, "\(watch.stderr)")
        #expect(clock.sleeps == [5, 5, 5])
        let healthy = await lab.status([])
        #expect(healthy.exitCode == 0)
        let degraded = await lab.status([])
        #expect(degraded.stdout.hasPrefix("Application e2e-ledger: Degraded (api@eu in lab: 0 of 1 replicas ready)\n"), "\(degraded.stdout)")
        lab.catalog.ready = nil
        let healthyText = await lab.status([]).stdout
        #expect(watch.stdout == "--- \(first)\n\(healthyText)\n--- \(third)\n\(degraded.stdout)", "\(watch.stdout)")
    }

    @Test func aTerminalIsRedrawnInPlaceAtEveryReading() async throws {
        let lab = try await StatusLab()
        let clock = WatchClock(lab.lab.clock, [{}, {}])
        let watch = await lab.status(["--watch", "--interval", "2"], clock: clock, isTerminal: true)
        #expect(watch.exitCode == 0, "\(watch.stderr)")
        let screens = watch.stdout.components(separatedBy: StatusWatch.redraw).dropFirst()
        #expect(screens.count == 3, "\(watch.stdout)")
        #expect(screens.allSatisfy { $0.hasPrefix("Every 2 s: mcloud status, read at ") && $0.contains("\n\nApplication e2e-ledger: Healthy\n") })
        #expect(clock.sleeps == [2, 2, 2])
    }

    @Test func withJSONEachChangeIsOneLineThatParses() async throws {
        let lab = try await StatusLab()
        let clock = WatchClock(lab.lab.clock, [{ lab.catalog.ready = 0 }, {}, { lab.catalog.ready = nil }])
        let watch = await lab.status(["--watch", "--json"], clock: clock)
        #expect(watch.exitCode == 0, "\(watch.stderr)")
        let lines = watch.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines.last == "", "three changes, each one line: \(watch.stdout)")
        let documents = try lines.dropLast().map { try JSONParser.parse(Array($0.utf8)) }
        #expect(documents.map { $0["health"]?.stringValue } == ["Healthy", "Degraded", "Healthy"])
        #expect(documents.allSatisfy { $0["format_version"]?.stringValue == "1.0" })
    }

    /// A cloud that does not answer on one reading is Unknown with the reason, and the watch reads on.
    @Test func aCloudThatStopsAnsweringIsUnknownForThatReadingAndTheWatchGoesOn() async throws {
        let lab = try await StatusLab()
        let hung = "lab"
        let clock = WatchClock(lab.lab.clock, [{ lab.catalog.hanging = [hung] }, { lab.catalog.hanging = [] }])
        let watch = await lab.status(["--watch", "--timeout", "1"], clock: clock)
        #expect(watch.exitCode == 0, "\(watch.stderr)")
        let readings = watch.stdout.components(separatedBy: "--- ").dropFirst()
        #expect(readings.count == 3, "\(watch.stdout)")
        #expect(readings.map { $0.split(separator: "\n").dropFirst().first.map(String.init) ?? "" }.map { $0.prefix(31) } == [
            "Application e2e-ledger: Healthy", "Application e2e-ledger: Unknown", "Application e2e-ledger: Healthy",
        ])
        #expect(watch.stdout.contains("  cloud \(hung) is down: no answer within 1 s (--timeout)\n"), "\(watch.stdout)")
    }

    /// A watch whose first reading fails ends with the error, as one reading would.
    @Test func aWatchWhoseFirstReadingFailsExitsOne() async throws {
        let lab = try await StatusLab()
        try Data().write(to: URL(fileURLWithPath: "\(lab.lab.folder)/state.json"))
        let watch = await lab.status(["--watch"], clock: WatchClock(lab.lab.clock, []))
        #expect(watch.exitCode == 1)
        #expect(watch.stderr.hasPrefix("error: "), "\(watch.stderr)")
        #expect(watch.stdout.isEmpty)
    }
}

/// A manual clock for a watch: its n-th wait runs the n-th change and moves the time on; the wait after the last
/// change is cancelled, as Ctrl-C cancels the watch's task in the real process.
final class WatchClock: WallClock {
    private let clock: ManualClock
    private let changes: [@Sendable () -> Void]
    private let waits = Mutex<[Double]>([])

    init(_ clock: ManualClock, _ changes: [@Sendable () -> Void]) {
        self.clock = clock
        self.changes = changes
    }

    var now: Double { clock.now }

    /// Every wait asked for, the cancelled one included.
    var sleeps: [Double] { waits.withLock { $0 } }

    func sleep(seconds: Double) async throws(CancellationError) {
        let index = waits.withLock { waits in
            waits.append(seconds)
            return waits.count - 1
        }
        guard index < changes.count else { throw CancellationError() }
        try await clock.sleep(seconds: seconds)
        changes[index]()
    }
}
