import MCloudCore
import MCloudPlanner

/// `mcloud explain CELL`: why one cell went where it did, and what it would take for the runner-up to win.
struct ExplainCommand: Command {
    static let spec = CommandSpec(
        name: "explain",
        abstract: "Explain one cell's placement: every other cloud's reasons and the runner-up.",
        options: [ManifestOptions.file, ManifestOptions.providers],
        positionals: [CommandSpec.Positional(name: "CELL", help: "A cell such as payments-api@ru, or a global workload's name.")]
    )

    var manifests: ManifestOptions
    var cell: String

    init(_ arguments: ParsedArguments) {
        manifests = ManifestOptions(arguments)
        cell = arguments.positionals.first ?? ""
    }

    func run(_ context: CommandContext) async -> ExitCode {
        guard let (_, plan) = PlacementLoader.plan(manifests, context) else { return .failure }
        guard let explanation = plan.explanations.first(where: { $0.cell == cell }) else {
            let names = plan.explanations.map(\.cell)
            context.stderr.write("error: no cell named '\(cell)'\(Suggestion.didYouMean(cell, in: names).replacingQuotes)\n")
            return .failure
        }
        let currency = plan.cost.currency
        let cost = plan.cost.byCell.first { $0.cell == cell }?.amount ?? 0
        var text = "\(cell) (\(explanation.kind.rawValue))\n"
        text += "  placement: \(placement(of: cell, in: plan))\n"
        text += "  monthly:   \(Money.format(cost, currency))\n"
        text += "  why:       \(explanation.why)\n"
        text += "  runner-up: \(explanation.runnerUp ?? "none: every other cloud breaks a hard rule, listed below")\n"
        text += "  not used:\n"
        for (cloud, reasons) in explanation.rejected {
            for reason in reasons { text += "    \(cloud): \(reason)\n" }
        }
        context.stdout.write(text)
        return .success
    }

    private func placement(of cell: String, in plan: PlacementPlan) -> String {
        if let service = plan.services.first(where: { $0.cell == cell }) {
            return service.replicas.map { "\($0.cloud) \($0.count)" }.joined(separator: ", ")
        }
        if let database = plan.databases.first(where: { $0.cell == cell }) {
            return "primary \(database.primary)" + (database.backup.map { ", backup \($0)" } ?? "")
        }
        return ""
    }
}
