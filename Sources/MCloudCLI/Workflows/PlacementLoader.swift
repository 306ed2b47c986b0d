import MCloudCore
import MCloudManifest
import MCloudPlanner

/// Reads the manifests and plans them; warnings go to stderr, and any error is thrown with the diagnostics or the
/// infeasible cells. `lost` clouds (a failover's, recorded in the state) are placed as if they were gone.
enum PlacementLoader {
    /// `explain`: a failure lists every rejected cloud's reasons under each cell (`plan --explain`). `reasons`: what the
    /// plan keeps of each placed cell's reasoning (`Planner.Explanations`).
    static func plan(
        _ manifests: ManifestOptions, lost: Set<String> = [], explain: Bool = false, reasons: Planner.Explanations = .every, _ context: CommandContext
    ) throws(CommandFailure) -> (Model, PlacementPlan) {
        let model = try PlacementLoader.model(manifests, context)
        switch try placement(model, lost: lost, reasons: reasons) {
        case .success(let plan):
            return (model, plan)
        case .failure(let failure):
            throw failed(failure, explain: explain)
        }
    }

    /// The model placed, or the cells that cannot be: those no placement fits, else those whose DR leg the placement
    /// made could not restore (`RestorableLegs`).
    /// `leftOut`: cells not placed at all, as a what-if leaves out what it cannot place.
    static func placement(
        _ model: Model, lost: Set<String> = [], leftOut: Set<String> = [], reasons: Planner.Explanations = .every
    ) throws(CommandFailure) -> Result<PlacementPlan, PlacementFailure> {
        let unknown = lost.subtracting(model.clouds.map(\.name)).sorted()
        guard unknown.isEmpty else {
            throw CommandFailure("the state records \(unknown.joined(separator: ", ")) as lost, and the catalog has no such cloud; nothing was planned")
        }
        let options = Planner.Options(explanations: reasons, lost: lost, leftOut: leftOut)
        return Planner.plan(model, options: options).flatMap { plan in
            RestorableLegs.failure(model, plan, options: options).map { .failure($0) } ?? .success(plan)
        }
    }

    /// The validated model without placing it: its warnings on stderr, its errors thrown.
    static func model(_ manifests: ManifestOptions, _ context: CommandContext) throws(CommandFailure) -> Model {
        let set = ManifestLoader.load(paths: manifests.paths, providers: manifests.providers)
        guard let model = set.model else {
            let count = set.diagnostics.errorCount
            throw .summary("\(count) error\(count == 1 ? "" : "s") in the manifests; nothing was planned", details: set.diagnostics.map { "\($0)" })
        }
        for diagnostic in set.diagnostics { context.stderr.write("\(diagnostic)\n") }
        return model
    }

    /// The infeasible cells, each with its summary and hints (with `explain`, every rejected cloud's reasons), after
    /// the error.
    static func failed(_ failure: PlacementFailure, explain: Bool = false) -> CommandFailure {
        var lines = ["error: no placement meets every rule"]
        for cell in failure.cells {
            lines.append("  \(cell.summary)")
            lines += cell.hints.map { "    hint: \($0)" }
            guard explain else { continue }
            for rejection in cell.rejected {
                lines += rejection.reasons.map { "    \(rejection.cloud): \($0)" }
            }
        }
        return .lines(lines)
    }
}
