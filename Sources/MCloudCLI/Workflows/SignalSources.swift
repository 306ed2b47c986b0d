import Dispatch
import Foundation

/// Ctrl-C and SIGTERM (what `timeout`, a cancelled CI job and Kubernetes send) taken over from their default of ending
/// the process: each one calls `handler` with its number and how many arrived together, until `cancel`. The one owner
/// of the two dispatch sources, for an apply's `InterruptHandler` and for `status --watch`, which cancels its task.
final class SignalSources {
    private let sources: [any DispatchSourceSignal]

    init(label: String, _ handler: @escaping @Sendable (_ number: Int32, _ count: Int) -> Void) {
        let queue = DispatchQueue(label: label)
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            // Signals that arrive together are delivered as one event with a count. The handler holds its source for
            // it; `cancel` lets go, or the two keep each other.
            source.setEventHandler { handler(number, max(1, Int(source.data))) }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources {
            source.setEventHandler(handler: nil)
            source.cancel()
        }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
