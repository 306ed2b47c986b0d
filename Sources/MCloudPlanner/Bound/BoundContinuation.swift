import Dispatch
import Synchronization

/// The lower bound climbed further on a thread of its own while the search goes on, for the bound alone.
///
/// Where the bound gets only its floor of evaluations (the largest inputs), it ends well short of the LP's, while the
/// search after it runs on one core and leaves the other idle for seconds. There the bound goes on from its best
/// prices in one share, so its work is the same whatever the threads do and its result is deterministic. The search
/// keeps the first prices: it was tuned on them, and prices that bound better do not steer it better
/// (docs/experiments/0034).
final class BoundContinuation: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Double>(-.infinity)

    /// Starts climbing `bound` from `dual` (a point of its box, such as its best prices) on another thread.
    init(_ bound: LagrangianBound, from dual: [Double], upperBound: Double) {
        let alone = bound.resharing(1)
        DispatchQueue.global().async { [self, alone] in
            var climbing = alone
            let value = climbing.solve(from: dual, upperBound: upperBound, evaluations: Self.evaluations, phases: Self.phases, hottest: Self.hottest).value
            result.withLock { $0 = value }
            done.signal()
        }
    }

    /// The best bound it found; waits for it.
    func value() -> Double {
        done.wait()
        let value = result.withLock { $0 }
        done.signal()
        return value
    }

    static let evaluations = 90
    static let phases = 2
    static let hottest = 0.0012
}
