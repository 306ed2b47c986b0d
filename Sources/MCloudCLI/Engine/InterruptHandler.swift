import Dispatch
import Foundation
import MCloudEngine

/// Ctrl-C during apply: the first stops gracefully (nothing new starts, what runs finishes, the state is written
/// after each), the second exits at once after releasing the lock, since the state is already safe.
final class InterruptHandler {
    private let source: any DispatchSourceSignal

    init(stopSignal: StopSignal, context: CommandContext, releaseLock: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "mcloud.interrupt"))
        source.setEventHandler {
            // Signals that arrive together are delivered as one event with a count.
            for _ in 0..<max(1, source.data) {
                if stopSignal.stop("interrupted") {
                    context.stderr.write("\nInterrupt received: waiting for the changes in progress, starting no new ones. Press Ctrl-C again to exit at once (the state is already saved).\n")
                } else {
                    context.stderr.write("\nSecond interrupt: exiting now. Changes that were in progress may have finished in the cloud; the next plan finds them.\n")
                    releaseLock()
                    exit(130)
                }
            }
        }
        source.resume()
        self.source = source
    }

    func cancel() {
        // The handler holds the source (for its count): let go of it, or the two keep each other.
        source.setEventHandler(handler: nil)
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
