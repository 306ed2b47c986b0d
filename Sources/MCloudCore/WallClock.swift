import Foundation
import Synchronization

/// The time as mcloud's waits and ages read it: now, and a pause. Every wait and every age goes through one, passed
/// in, so tests drive time by hand (`ManualClock`) and never sleep.
public protocol WallClock: Sendable {
    /// Seconds since 1970-01-01T00:00:00Z.
    var now: Double { get }
    /// Waits `seconds` (nothing for zero or less); throws when the task is cancelled.
    func sleep(seconds: Double) async throws(CancellationError)
}

extension WallClock {
    /// `now` in whole seconds, as backup times and ages are kept.
    public var nowSeconds: Int { Int(now.rounded(.down)) }
}

/// The machine's clock and `Task.sleep`.
public struct SystemClock: WallClock {
    public init() {}

    public var now: Double { Date().timeIntervalSince1970 }

    public func sleep(seconds: Double) async throws(CancellationError) {
        guard seconds > 0 else { return }
        do {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
        } catch {
            throw CancellationError()
        }
    }
}

/// A clock that moves only when told: `sleep` returns at once, having moved the time on by what it was asked to
/// wait, and `advance` moves it for everything else (work that takes time in the real world). For tests.
public final class ManualClock: WallClock {
    private let time: Mutex<Double>
    private let slept: Mutex<[Double]>

    public init(now: Double = 0) {
        time = Mutex(now)
        slept = Mutex([])
    }

    public var now: Double { time.withLock { $0 } }

    /// Every pause asked for, in order.
    public var sleeps: [Double] { slept.withLock { $0 } }

    public func advance(by seconds: Double) {
        time.withLock { $0 += max(0, seconds) }
    }

    public func sleep(seconds: Double) async throws(CancellationError) {
        if Task.isCancelled { throw CancellationError() }
        slept.withLock { $0.append(seconds) }
        advance(by: seconds)
        await Task.yield()
    }
}
