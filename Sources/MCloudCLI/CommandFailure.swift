/// Why a command stopped: thrown by the command and its helpers, and printed once, by `MCloud.main`. `details` come
/// first as they stand (the diagnostics that explain it), then `error: <message>` (or the message alone when it is a
/// count that sums the details up), then `hint: <hint>`.
struct CommandFailure: Error, Sendable {
    var details: [String] = []
    var message: String
    var hint: String?
    var exitCode: ExitCode = .failure
    /// The message is a summary of `details` (`2 errors in the manifests; nothing was planned`), printed without
    /// `error:`.
    var isSummary = false

    init(_ message: String, hint: String? = nil, details: [String] = [], exitCode: ExitCode = .failure) {
        self.message = message
        self.hint = hint
        self.details = details
        self.exitCode = exitCode
    }

    /// The diagnostics, then their count, as the manifests' loaders print them.
    static func summary(_ message: String, details: [String]) -> CommandFailure {
        var failure = CommandFailure(message, details: details)
        failure.isSummary = true
        return failure
    }

    /// Lines printed as they stand, the first being the error (`error: no placement meets every rule`, then each cell).
    static func lines(_ lines: [String]) -> CommandFailure {
        var failure = CommandFailure(lines.last ?? "", details: Array(lines.dropLast()))
        failure.isSummary = true
        return failure
    }

    /// A failure whose error a helper that prints its own (`AtomicFile`) has already printed.
    static let reported: CommandFailure = .lines([])

    /// What goes to standard error, each line ending in a newline.
    var text: String {
        var lines = details
        if !(isSummary && message.isEmpty) { lines.append(isSummary ? message : "error: \(message)") }
        if let hint { lines.append("hint: \(hint)") }
        return lines.map { $0 + "\n" }.joined()
    }
}

extension Result where Failure == CommandFailure {
    /// The failure's lines, for a later error that must not hide it.
    var failureText: [String] {
        guard case .failure(let failure) = self else { return [] }
        return failure.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
