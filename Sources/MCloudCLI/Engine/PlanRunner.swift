import Foundation
import MCloudCore
import MCloudEngine
import MCloudManifest
import MCloudProvider
import MCloudState
import MCloudViews

/// Makes the deployment plan that plan, apply and destroy show, and prints it.
enum PlanRunner {
    static let target = CommandSpec.Option(
        names: ["--target"], valueName: "ADDRESS",
        help: "Only resources whose address starts with ADDRESS, and what they depend on; repeatable.", repeatable: true
    )

    /// A deployment plan, the document every output is drawn from, and the catalog clouds it was made with.
    struct Made {
        var document: PlanDocument
        var deployment: DeploymentPlan
        var clouds: [String: Cloud]
    }

    /// The plan, built once as the document every output is drawn from; nil after printing why there is none.
    static func plan(
        _ operation: DeploymentPlan.Operation, manifests: ManifestOptions, state: State?, refresh: Bool, targets: [String],
        _ context: CommandContext
    ) async -> Made? {
        switch operation {
        case .apply:
            guard let inputs = DeploymentInputs.load(manifests, context) else { return nil }
            return await apply(inputs, state: state, refresh: refresh, targets: targets, context)
        case .destroy:
            // Destroy places nothing: it needs the application's name and the clouds' endpoints, even when the
            // manifests could no longer be placed.
            guard let model = model(manifests, context) else { return nil }
            let request = PlanMaker.Request(
                operation: .destroy, application: model.application.name, desired: [], state: state, refresh: refresh,
                inputDigest: DeploymentInputs.digest(manifests), targets: TargetSelection(targets)
            )
            let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            return await make(request, clouds: clouds, placement: nil, context)
        }
    }

    /// The apply plan of inputs already read and placed.
    static func apply(_ inputs: DeploymentInputs, state: State?, refresh: Bool, targets: [String], _ context: CommandContext) async -> Made? {
        let request = PlanMaker.Request(
            operation: .apply, application: inputs.model.application.name, desired: inputs.desired, state: state, refresh: refresh,
            inputDigest: inputs.inputDigest, targets: TargetSelection(targets)
        )
        let made = await make(request, clouds: inputs.clouds, placement: PlacementReport(inputs.placementPlan), context)
        let bare = inputs.cloudsWithoutEndpoints
        if made == nil, !bare.isEmpty {
            context.stderr.write("hint: \(PlacementOnly.list(bare)) no endpoints in the catalog; 'mcloud plan --placement-only' shows where everything would run without endpoints or credentials\n")
        }
        return made
    }

    private static func make(_ request: PlanMaker.Request, clouds: [String: Cloud], placement: PlacementReport?, _ context: CommandContext) async -> Made? {
        do throws(EngineError) {
            let plan = try await PlanMaker.plan(request, clouds: clouds, catalog: ProviderRegistry(environment: context.environment))
            return Made(document: PlanDocument(deployment: plan, placement: placement), deployment: plan, clouds: clouds)
        } catch {
            context.stderr.write("error: \(error.message)\n")
            return nil
        }
    }

    /// The validated model without placing it; nil after printing the diagnostics.
    static func model(_ manifests: ManifestOptions, _ context: CommandContext) -> Model? {
        let set = ManifestLoader.load(paths: manifests.paths, providers: manifests.providers)
        for diagnostic in set.diagnostics { context.stderr.write("\(diagnostic)\n") }
        if set.model == nil {
            context.stderr.write("\(set.diagnostics.errorCount) error\(set.diagnostics.errorCount == 1 ? "" : "s") in the manifests; nothing was planned\n")
        }
        return set.model
    }

    /// Writes the plan's JSON for `apply PLANFILE`, atomically.
    static func save(_ document: JSONValue, to path: String, _ context: CommandContext) -> Bool {
        AtomicFile.write(Data((document.serialized() + "\n").utf8), to: path, what: "the plan", context)
    }
}
