import MCloudCore
import Testing

@Suite struct PollerTests {
    /// What a test's wait ends with when it does not get its answer.
    struct Stopped: Error, Equatable {
        let stop: Poller.Stop
    }

    struct CheckFailed: Error, Equatable {}

    @Test func anAnswerAtTheFirstLookWaitsForNothing() async throws {
        let clock = ManualClock(now: 1000)
        let poller = Poller(backoff: Backoff(initial: 1, cap: 10), timeout: 60, clock: clock)
        let value = try await poller.poll({ () async throws(Stopped) -> String? in "ready" }, stopped: Stopped.init)
        #expect(value == "ready")
        #expect(clock.sleeps.isEmpty)
        #expect(clock.now == 1000)
    }

    @Test(arguments: [
        // Doubling from 1 s, capped at 5 s: answered at the sixth look.
        (Backoff(initial: 1, factor: 2, cap: 5), 6, [1.0, 2, 4, 5, 5]),
        // OpenStack's delays: half a second, 1.5 times each, capped at 5 s.
        (Backoff(initial: 0.5, factor: 1.5, cap: 5), 4, [0.5, 0.75, 1.125]),
        (Backoff.constant(5), 4, [5.0, 5, 5]),
    ])
    func theWaitsFollowTheBackoffUpToItsCap(_ backoff: Backoff, _ answeredAt: Int, _ waits: [Double]) async throws {
        let clock = ManualClock()
        var looks = 0
        let poller = Poller(backoff: backoff, timeout: 3600, clock: clock)
        let value = try await poller.poll({ () async throws(Stopped) -> Int? in
            looks += 1
            return looks == answeredAt ? looks : nil
        }, stopped: Stopped.init)
        #expect(value == answeredAt)
        #expect(clock.sleeps == waits)
        #expect(clock.now == waits.reduce(0, +))
    }

    @Test(arguments: [
        // The last wait is cut to the deadline, and one more look is made at it.
        (Backoff(initial: 1, factor: 2, cap: 15), 20.0, [1.0, 2, 4, 8, 5]),
        (Backoff.constant(5), 15.0, [5.0, 5, 5]),
        (Backoff(initial: 0.5, factor: 1.5, cap: 5), 3.0, [0.5, 0.75, 1.125, 0.625]),
    ])
    func aWaitThatNeverEndsTimesOutAtTheDeadlineOnTheInjectedClock(_ backoff: Backoff, _ timeout: Double, _ waits: [Double]) async {
        let clock = ManualClock(now: 500)
        var looks = 0
        let poller = Poller(backoff: backoff, timeout: timeout, clock: clock)
        await #expect(throws: Stopped(stop: .timedOut(seconds: timeout, looks: waits.count + 1))) {
            try await poller.until({ () async throws(Stopped) -> Bool in
                looks += 1
                return false
            }, stopped: Stopped.init)
        }
        #expect(clock.sleeps == waits)
        #expect(clock.now == 500 + timeout)
        #expect(looks == waits.count + 1)
    }

    @Test func looksThatTakeTimeCountAgainstTheDeadline() async {
        let clock = ManualClock()
        let poller = Poller(backoff: .constant(2), timeout: 10, clock: clock)
        await #expect(throws: Stopped(stop: .timedOut(seconds: 10, looks: 3))) {
            try await poller.until({ () async throws(Stopped) -> Bool in
                clock.advance(by: 3)
                return false
            }, stopped: Stopped.init)
        }
        // Looks at 0, 5 and 10, each taking 3 s: after the third, the deadline has passed.
        #expect(clock.sleeps == [2, 2])
        #expect(clock.now == 13)
    }

    @Test func anErrorFromTheCheckEndsTheWaitAtOnce() async {
        let clock = ManualClock()
        var looks = 0
        let poller = Poller(backoff: .constant(1), timeout: 60, clock: clock)
        await #expect(throws: CheckFailed()) {
            try await poller.until({ () async throws(CheckFailed) -> Bool in
                looks += 1
                if looks == 2 { throw CheckFailed() }
                return false
            }, stopped: { _ in CheckFailed() })
        }
        #expect(looks == 2)
        #expect(clock.sleeps == [1])
    }

    @Test func aCancelledWaitStopsBeforeItsNextPause() async {
        let clock = ManualClock()
        let poller = Poller(backoff: .constant(1), timeout: 60, clock: clock)
        let waiting = Task { () async throws(Stopped) -> Bool in
            try await poller.poll({ () async throws(Stopped) -> Bool? in
                withUnsafeCurrentTask { $0?.cancel() }
                return nil
            }, stopped: Stopped.init)
        }
        await #expect(throws: Stopped(stop: .cancelled)) { try await waiting.value }
        #expect(clock.sleeps.isEmpty)
    }

    @Test func theSystemClockDoesNotSleepForNothing() async throws {
        try await SystemClock().sleep(seconds: 0)
        try await SystemClock().sleep(seconds: -1)
    }
}
