import MCloudEngine

/// Apply's progress, a line per event in Terraform's words, so people and CI logs read it alike.
struct ProgressPrinter: Sendable {
    let context: CommandContext

    func print(_ event: ApplyEvent) {
        switch event {
        case .started(let address, let action):
            context.stdout.write("\(address): \(Self.words(action).starting)...\n")
        case .stillRunning(let address, let action, let seconds):
            context.stdout.write("\(address): Still \(Self.words(action).ongoing)... [\(seconds)s elapsed]\n")
        case .finished(let address, let action, let seconds, let providerID):
            let id = providerID.map { $0.isEmpty ? "" : " [id=\($0)]" } ?? ""
            context.stdout.write("\(address): \(Self.words(action).done) complete after \(seconds)s\(id)\n")
        case .failed(let address, _, let message):
            context.stderr.write("error: \(address): \(message)\n")
        case .stopping(let reason):
            context.stderr.write("Stopping: \(reason).\n")
        }
    }

    static func words(_ action: ResourceChange.Action) -> (starting: String, ongoing: String, done: String) {
        switch action {
        case .create: return ("Creating", "creating", "Creation")
        case .update, .noOp: return ("Modifying", "modifying", "Modifications")
        case .replace: return ("Replacing", "replacing", "Replacement")
        case .delete: return ("Destroying", "destroying", "Destruction")
        }
    }
}
