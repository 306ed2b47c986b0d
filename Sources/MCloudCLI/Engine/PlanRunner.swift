import Foundation
import MCloudCore
import MCloudEngine
import MCloudManifest
import MCloudRender
import MCloudProvider
import MCloudState

/// Makes the deployment plan that plan, apply and destroy show, and prints it.
enum PlanRunner {
    static let target = CommandSpec.Option(
        names: ["--target"], valueName: "ADDRESS",
        help: "Only resources whose address starts with ADDRESS, and what they depend on; repeatable.", repeatable: true
    )

    /// The plan and the catalog clouds it was made with; nil after printing why there is none.
    static func plan(
        _ operation: DeploymentPlan.Operation, manifests: ManifestOptions, state: State?, refresh: Bool, targets: [String],
        _ context: CommandContext
    ) async -> (plan: DeploymentPlan, clouds: [String: Cloud], placementView: JSONValue?)? {
        let request: PlanMaker.Request
        let clouds: [String: Cloud]
        var placementView: JSONValue?
        switch operation {
        case .apply:
            guard let inputs = DeploymentInputs.load(manifests, context) else { return nil }
            request = PlanMaker.Request(
                operation: .apply, application: inputs.model.application.name, placement: inputs.placementJSON, desired: inputs.desired,
                state: state, refresh: refresh, inputDigest: inputs.inputDigest, targets: TargetSelection(targets)
            )
            clouds = inputs.clouds
            placementView = PlanDocument.json(inputs.placementPlan)
        case .destroy:
            // Destroy places nothing: it needs the application's name and the clouds' endpoints, even when the
            // manifests could no longer be placed.
            guard let model = model(manifests, context) else { return nil }
            request = PlanMaker.Request(
                operation: .destroy, application: model.application.name, placement: nil, desired: [], state: state, refresh: refresh,
                inputDigest: DeploymentInputs.digest(manifests), targets: TargetSelection(targets)
            )
            clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        do throws(EngineError) {
            let plan = try await PlanMaker.plan(request, clouds: clouds, catalog: ProviderRegistry(environment: context.environment))
            return (plan, clouds, placementView)
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

    /// The human view: the placement (for an apply plan), then the changes.
    static func human(_ document: JSONValue, placementView: JSONValue?, explain: Bool, _ context: CommandContext) -> String {
        var text = placementView.map { PlanView.render($0, explain: explain) + "\n" } ?? ""
        text += ChangesView.render(document, color: context.usesColor)
        return text
    }

    /// Writes the plan's document for `apply PLANFILE`, atomically: a temporary file renamed over the target.
    static func save(_ document: JSONValue, to path: String, _ context: CommandContext) -> Bool {
        let temporary = path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        do {
            try Data((document.serialized() + "\n").utf8).write(to: URL(fileURLWithPath: temporary))
            if FileManager.default.fileExists(atPath: path) { _ = try FileManager.default.replaceItemAt(URL(fileURLWithPath: path), withItemAt: URL(fileURLWithPath: temporary)) }
            else { try FileManager.default.moveItem(atPath: temporary, toPath: path) }
            return true
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            context.stderr.write("error: cannot write the plan to \(path): \(error.localizedDescription)\n")
            return false
        }
    }
}
