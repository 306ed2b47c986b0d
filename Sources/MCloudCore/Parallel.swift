import Dispatch
import Synchronization

/// Runs independent pieces of work on every core and returns the results in input order, so the output is the
/// same whatever the scheduling.
public enum Parallel {
    /// `body` maps a contiguous range of `0..<count` to one result per index; ranges run concurrently.
    public static func map<T: Sendable>(_ count: Int, _ body: @Sendable (Range<Int>) -> [T]) -> [T] {
        // A few chunks per core: enough to even out uneven work, few enough that the lock is rarely contended.
        let chunks = min(count, 64)
        guard chunks > 1 else { return body(0..<count) }
        let size = (count + chunks - 1) / chunks
        let results = Mutex([[T]](repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let part = body(min(count, chunk * size)..<min(count, (chunk + 1) * size))
            results.withLock { $0[chunk] = part }
        }
        return results.withLock { $0.flatMap { $0 } }
    }
}
