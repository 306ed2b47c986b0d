import Foundation
import Synchronization

/// Reads one pipe of a child process to its end on a thread of its own, keeping at most `limit` bytes and dropping
/// the rest, so a child that writes much to one stream never blocks on a full pipe while the other is read.
final class BoundedPipeReader: Sendable {
    private let handle: FileHandle
    private let limit: Int
    private let state = Mutex<(kept: [UInt8], total: Int)>(([], 0))
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe, limit: Int) {
        handle = pipe.fileHandleForReading
        self.limit = limit
    }

    func start() {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                state.withLock { state in
                    state.total += chunk.count
                    let room = limit - state.kept.count
                    if room > 0 { state.kept += chunk.prefix(room) }
                }
            }
            done.signal()
        }
    }

    /// Waits until the pipe is closed by every process that holds it, or until `deadline`; false on the deadline.
    func wait(until deadline: DispatchTime) -> Bool {
        done.wait(timeout: deadline) == .success
    }

    /// What was kept, and how many bytes came in all.
    var output: (kept: [UInt8], total: Int) { state.withLock { $0 } }
}
