import Foundation
import MCloudEngine
import Synchronization

/// Ctrl-C and SIGTERM (what `timeout`, a cancelled CI job and Kubernetes send) while a command holds the state lock.
/// The first one during the walk stops it gracefully: nothing new starts, what runs finishes, the state is written
/// after each, the lock is released and the command exits 1. Before the walk nothing has changed yet, so the first
/// one releases the lock and exits at once. The second one during the walk exits at once after releasing the lock,
/// since the state is already safe. Either exit after a signal is 128 plus its number, as a shell reports it.
final class InterruptHandler {
    /// The walk in progress, whose stop signal the first interrupt sets.
    private final class Walk: Sendable {
        let stopSignal = Mutex<StopSignal?>(nil)
    }

    private let sources: SignalSources
    private let walk = Walk()

    init(operation: String, context: CommandContext, releaseLock: @escaping @Sendable () -> Void) {
        let walk = walk
        let title = operation.prefix(1).uppercased() + operation.dropFirst()
        sources = SignalSources(label: "mcloud.interrupt") { number, count in
            let name = number == SIGINT ? "Interrupt" : "SIGTERM"
            for _ in 0..<count {
                guard let running = walk.stopSignal.withLock({ $0 }) else {
                    context.stderr.write("\n\(name) received before any change: nothing was changed. \(title) stopped; the state lock is released.\n")
                    releaseLock()
                    exit(128 + number)
                }
                if running.stop(name == "Interrupt" ? "interrupted" : "terminated") {
                    context.stderr.write("\n\(name) received: waiting for the changes in progress, starting no new ones. Press Ctrl-C or send SIGTERM again to exit at once (the state is already saved).\n")
                } else {
                    context.stderr.write("\nSecond \(name == "Interrupt" ? "interrupt" : "SIGTERM"): exiting now. Changes that were in progress may have finished in the cloud; the next plan finds them.\n")
                    releaseLock()
                    exit(128 + number)
                }
            }
        }
    }

    /// From now on the first interrupt stops this walk instead of exiting.
    func walking(_ stopSignal: StopSignal) {
        walk.stopSignal.withLock { $0 = stopSignal }
    }

    func cancel() {
        sources.cancel()
    }
}
