import MCloudCore
import MCloudPlanner
import MCloudRender
import MCloudViews

/// `mcloud explain CELL`: why one cell (or CDN) went where it did, and what it would take for the runner-up to win; for
/// a cell that cannot be placed, every cloud's reasons and the hints checked to place it.
struct ExplainCommand: Command {
    static let spec = CommandSpec(
        name: "explain",
        abstract: "Explain one cell's or CDN's placement: the clouds considered, the runner-up and every other cloud's reasons; or why it cannot be placed.",
        options: [ManifestOptions.file, ManifestOptions.providers],
        positionals: [CommandSpec.Positional(name: "CELL", help: "A cell such as payments-api@ru, a global workload's name, or a CDN's name.")]
    )

    var manifests: ManifestOptions
    var cell: String

    init(_ arguments: ParsedArguments) {
        manifests = ManifestOptions(arguments)
        cell = arguments.positionals.first ?? ""
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let model = try PlacementLoader.model(manifests, context)
        var plan: PlacementPlan
        switch try PlacementLoader.placement(model) {
        case .success(let placed):
            plan = placed
        case .failure(let failure):
            if let failed = failure.cells.first(where: { $0.cell == cell }) {
                context.stdout.write(ExplainView.render(failed: failed))
                return .success
            }
            // Another cell cannot be placed: this one is explained in the placement of the rest, as a what-if does.
            let others = failure.cells.map(\.cell)
            guard case .success(let rest) = try PlacementLoader.placement(model, leftOut: Set(others)) else { throw PlacementLoader.failed(failure) }
            context.stderr.write("note: \(others.joined(separator: ", ")) cannot be placed (mcloud explain \(others[0])); \(cell) is explained in the placement of the rest\n")
            plan = rest
        }
        let report = PlacementReport(plan).withConnections(Wiring(model: model, placement: Placement(plan)).connections)
        if let text = ExplainView.render(cell: cell, in: report) {
            context.stdout.write(text)
            return .success
        }
        if let cdn = report.cdns.first(where: { $0.name == cell }), let explanation = CDNExplanation(cdn: cell, in: model) {
            context.stdout.write(ExplainView.render(cdn: explanation, placedOn: cdn.cloud, currency: report.cost.currency))
            return .success
        }
        let names = report.cells.map(\.name) + report.cdns.map(\.name)
        throw CommandFailure("no cell or CDN named '\(cell)'\(Suggestion.didYouMean(cell, in: names).replacingQuotes)")
    }
}
