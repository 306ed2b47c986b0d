import MCloudCore
import MCloudManifest
import MCloudPlanner

/// Reads the manifests and plans them, printing diagnostics or the infeasible cells on stderr; nil on any error.
/// `lost` clouds (a failover's, recorded in the state) are placed as if they were gone.
enum PlacementLoader {
    static func plan(_ manifests: ManifestOptions, lost: Set<String> = [], _ context: CommandContext) -> (Model, PlacementPlan)? {
        let set = ManifestLoader.load(paths: manifests.paths, providers: manifests.providers)
        for diagnostic in set.diagnostics { context.stderr.write("\(diagnostic)\n") }
        guard let model = set.model else {
            context.stderr.write("\(set.diagnostics.errorCount) error\(set.diagnostics.errorCount == 1 ? "" : "s") in the manifests; nothing was planned\n")
            return nil
        }
        let unknown = lost.subtracting(model.clouds.map(\.name)).sorted()
        guard unknown.isEmpty else {
            context.stderr.write("error: the state records \(unknown.joined(separator: ", ")) as lost, and the catalog has no such cloud; nothing was planned\n")
            return nil
        }
        switch Planner.plan(model, options: Planner.Options(lost: lost)) {
        case .success(let plan):
            return (model, plan)
        case .failure(let failure):
            report(failure, context)
            return nil
        }
    }

    /// The infeasible cells on stderr, each with its summary and hints.
    static func report(_ failure: PlacementFailure, _ context: CommandContext) {
        context.stderr.write("error: no placement meets every rule\n")
        for cell in failure.cells {
            context.stderr.write("  \(cell.summary)\n")
            for hint in cell.hints { context.stderr.write("    hint: \(hint)\n") }
        }
    }
}
