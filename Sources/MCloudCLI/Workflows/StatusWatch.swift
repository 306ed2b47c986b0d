import Foundation
import MCloudCore
import MCloudViews

/// `status --watch`: reads the status again `interval` seconds after each reading ends, until its task is cancelled
/// (by Ctrl-C or SIGTERM: `SignalSources`), and then exits 0. On a terminal it redraws each reading in place, as
/// `watch` does; elsewhere (a pipe, a CI log) it prints a reading only when it differs from the last one printed, under
/// a line with its time, so a log holds the changes and not one copy per interval. With --json each printed reading
/// is one line (NDJSON). The waits go through the context's clock, so tests drive them without sleeping.
struct StatusWatch {
    /// Seconds between the end of one reading and the start of the next.
    var interval: Int
    var json: Bool
    var context: CommandContext

    /// Clears the screen and moves to its top left, as `watch` and `clear` do (ANSI: home, then erase all).
    static let redraw = "\u{1B}[H\u{1B}[2J"

    func run(_ reading: @escaping @Sendable () async throws(CommandFailure) -> StatusDocument) async throws(CommandFailure) -> ExitCode {
        var shown: StatusDocument?
        var failure: String?
        while true {
            // A reading that fails after the first (a state being replaced, say) is reported once and the watch goes
            // on; the first one ends it, as `mcloud status` would end.
            guard let result = await Self.cancellable(reading) else { return .success }
            switch result {
            case .success(let document):
                failure = nil
                show(document, after: shown)
                shown = Self.timeless(document)
            case .failure(let error):
                guard shown != nil else { throw error }
                if failure != error.message {
                    context.stderr.write("\(Self.stamp(context.clock.nowSeconds)) error: \(error.message); still watching\n")
                }
                failure = error.message
            }
            do throws(CancellationError) {
                try await context.clock.sleep(seconds: Double(interval))
            } catch {
                return .success
            }
        }
    }

    private func show(_ document: StatusDocument, after shown: StatusDocument?) {
        let time = Self.stamp(document.time)
        if json {
            guard Self.timeless(document) != shown else { return }
            context.stdout.write(document.json.serialized(pretty: false) + "\n")
        } else if context.isTerminal {
            context.stdout.write(Self.redraw + "Every \(interval) s: mcloud status, read at \(time); stop with Ctrl-C\n\n" + StatusView.render(document))
        } else {
            guard Self.timeless(document) != shown else { return }
            context.stdout.write((shown == nil ? "" : "\n") + "--- \(time)\n" + StatusView.render(document))
        }
    }

    /// The document without its reading time: what a change is judged on. A leg's age follows the clock, but its
    /// newest backup and its verdict do not unless something happened.
    private static func timeless(_ document: StatusDocument) -> StatusDocument {
        var document = document
        document.time = 0
        return document
    }

    static func stamp(_ seconds: Int) -> String {
        Date(timeIntervalSince1970: Double(seconds)).formatted(Date.ISO8601FormatStyle())
    }

    /// The reading's result, or nil as soon as the task is cancelled: a cloud that does not answer may hold a reading
    /// for all of --timeout, and Ctrl-C should not wait for it.
    private static func cancellable(
        _ reading: @escaping @Sendable () async throws(CommandFailure) -> StatusDocument
    ) async -> Result<StatusDocument, CommandFailure>? {
        let first = FirstResult<Result<StatusDocument, CommandFailure>?>()
        let task = Task {
            do throws(CommandFailure) {
                first.offer(.success(try await reading()))
            } catch {
                first.offer(.failure(error))
            }
        }
        let result = await withTaskCancellationHandler {
            await first.value()
        } onCancel: {
            first.offer(nil)
        }
        task.cancel()
        return Task.isCancelled ? nil : result
    }
}
