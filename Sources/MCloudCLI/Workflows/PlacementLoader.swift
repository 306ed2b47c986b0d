import MCloudCore
import MCloudManifest
import MCloudPlanner

/// Reads the manifests and plans them; warnings go to stderr, and any error is thrown with the diagnostics or the
/// infeasible cells. `lost` clouds (a failover's, recorded in the state) are placed as if they were gone.
enum PlacementLoader {
    static func plan(_ manifests: ManifestOptions, lost: Set<String> = [], _ context: CommandContext) throws(CommandFailure) -> (Model, PlacementPlan) {
        let model = try PlacementLoader.model(manifests, context)
        let unknown = lost.subtracting(model.clouds.map(\.name)).sorted()
        guard unknown.isEmpty else {
            throw CommandFailure("the state records \(unknown.joined(separator: ", ")) as lost, and the catalog has no such cloud; nothing was planned")
        }
        switch Planner.plan(model, options: Planner.Options(lost: lost)) {
        case .success(let plan):
            return (model, plan)
        case .failure(let failure):
            throw failed(failure)
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

    /// The infeasible cells, each with its summary and hints, after the error.
    static func failed(_ failure: PlacementFailure) -> CommandFailure {
        var lines = ["error: no placement meets every rule"]
        for cell in failure.cells {
            lines.append("  \(cell.summary)")
            lines += cell.hints.map { "    hint: \($0)" }
        }
        return .lines(lines)
    }
}
