import MCloudCore
import MCloudViews

/// `mcloud explain CELL`: why one cell went where it did, and what it would take for the runner-up to win.
struct ExplainCommand: Command {
    static let spec = CommandSpec(
        name: "explain",
        abstract: "Explain one cell's placement: the clouds considered, the runner-up and every other cloud's reasons.",
        options: [ManifestOptions.file, ManifestOptions.providers],
        positionals: [CommandSpec.Positional(name: "CELL", help: "A cell such as payments-api@ru, or a global workload's name.")]
    )

    var manifests: ManifestOptions
    var cell: String

    init(_ arguments: ParsedArguments) {
        manifests = ManifestOptions(arguments)
        cell = arguments.positionals.first ?? ""
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let (_, plan) = try PlacementLoader.plan(manifests, context)
        let report = PlacementReport(plan)
        guard let text = ExplainView.render(cell: cell, in: report) else {
            throw CommandFailure("no cell named '\(cell)'\(Suggestion.didYouMean(cell, in: report.cells.map(\.name)).replacingQuotes)")
        }
        context.stdout.write(text)
        return .success
    }
}
