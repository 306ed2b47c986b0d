import Foundation
import MCloudCore
import MCloudEngine
import MCloudManifest
import MCloudPlanner
import MCloudPolicy
import MCloudProvider
import MCloudState
import MCloudViews

/// Makes the deployment plan that plan, apply and destroy show, and prints it.
enum PlanRunner {
    static let target = CommandSpec.Option(
        names: ["--target"], valueName: "ADDRESS",
        help: "Only resources whose address starts with ADDRESS, and what they depend on; repeatable.", repeatable: true
    )

    static let recovered = CommandSpec.Option(
        names: ["--recovered"], valueName: "CLOUD",
        help: "CLOUD, recorded as lost by a failover, is back: read it again and delete what the state kept there; repeatable.", repeatable: true
    )

    /// A deployment plan, the document every output is drawn from, and the catalog clouds it was made with.
    struct Made {
        var document: PlanDocument
        var deployment: DeploymentPlan
        var clouds: [String: Cloud]
    }

    /// The plan, built once as the document every output is drawn from.
    static func plan(
        _ operation: DeploymentPlan.Operation, manifests: ManifestOptions, state: State?, refresh: Bool, targets: [String],
        recovering: Set<String> = [], _ context: CommandContext
    ) async throws(CommandFailure) -> Made {
        switch operation {
        case .apply:
            // The plan apply prints shows each cell's why, not every unused cloud's reasons.
            let inputs = try DeploymentInputs.load(manifests, lost: Set(state?.lost ?? []), reasons: .counted, context)
            return try await apply(inputs, state: state, refresh: refresh, targets: targets, recovering: recovering, context)
        case .destroy:
            // Destroy places nothing: it needs the application's name and the clouds' endpoints, even when the
            // manifests could no longer be placed.
            let model = try PlacementLoader.model(manifests, context)
            let request = PlanMaker.Request(
                operation: .destroy, application: model.application.name, desired: [], state: state, refresh: refresh,
                inputDigest: DeploymentInputs.digest(manifests), targets: TargetSelection(targets)
            )
            let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            return try await make(request, model: model, clouds: clouds, state: state, placement: nil, context)
        }
    }

    /// The apply plan of inputs already read and placed.
    /// `losing`: clouds a failover takes as gone, beside those the state records; `retaining`: the DR legs it restores
    /// from, kept though the manifests no longer want them.
    static func apply(
        _ inputs: DeploymentInputs, state: State?, refresh: Bool, targets: [String], losing: Set<String> = [],
        retaining: Set<ResourceAddress> = [], recovering: Set<String> = [], _ context: CommandContext
    ) async throws(CommandFailure) -> Made {
        let request = PlanMaker.Request(
            operation: .apply, application: inputs.model.application.name, desired: inputs.desired, state: state, refresh: refresh,
            inputDigest: inputs.inputDigest, targets: TargetSelection(targets), losing: losing, retaining: retaining,
            recovering: recovering
        )
        do throws(CommandFailure) {
            let placement = PlacementReport(inputs.placementPlan).withWarnings(byCell: inputs.cellWarnings).withConnections(inputs.connections)
            return try await make(request, model: inputs.model, clouds: inputs.clouds, state: state, placement: placement, context)
        } catch {
            let bare = inputs.cloudsWithoutEndpoints
            guard !bare.isEmpty else { throw error }
            var failure = error
            failure.hint = "\(PlacementOnly.list(bare)) no endpoints in the catalog; 'mcloud plan --placement-only' shows where everything would run without endpoints or credentials"
            throw failure
        }
    }

    private static func make(
        _ request: PlanMaker.Request, model: Model, clouds: [String: Cloud], state: State?, placement: PlacementReport?, _ context: CommandContext
    ) async throws(CommandFailure) -> Made {
        // After a destroy nothing runs, so it costs nothing.
        let application = model.application
        let cost = CostDiff(recorded: state?.placement?.cost, after: placement?.cost, currency: application.currency, rate: application.rate(for:))
        do throws(EngineError) {
            let plan = try await PlanMaker.plan(request, clouds: clouds, catalog: context.providerCatalog)
            var document = PlanDocument(deployment: plan, placement: placement?.withWarnings(from: plan.changes), cost: cost)
            document.policy = PolicyChecker.check(model, document: document, recorded: state?.placement)
            return Made(document: document, deployment: plan, clouds: clouds)
        } catch {
            throw CommandFailure(error.message)
        }
    }

    /// Prints every failed policy rule on stderr, an error for a mandatory one and a warning for an advisory one, and
    /// throws when a mandatory rule failed, saying what that means (`consequence`).
    static func enforce(_ policy: PolicyReport?, consequence: String, _ context: CommandContext) throws(CommandFailure) {
        guard let policy else { return }
        for verdict in policy.failed { context.stderr.write(verdict.diagnostic + "\n") }
        let broken = policy.failed.filter { $0.level == .mandatory }.count
        guard broken > 0 else { return }
        throw CommandFailure("the plan breaks \(broken) mandatory policy rule\(broken == 1 ? "" : "s"); \(consequence)")
    }

    /// A plan saved by `plan --out`.
    static func read(_ file: String) throws(CommandFailure) -> PlanDocument {
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read the plan file \(file)") }
        do throws(PlanDocument.Failure) {
            return try PlanDocument.parse(Array(data), file: file)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Writes the plan's JSON for `apply PLANFILE`, atomically.
    static func save(_ document: JSONValue, to path: String, _ context: CommandContext) throws(CommandFailure) {
        guard AtomicFile.write(Data(document.serializedBytes() + [UInt8(ascii: "\n")]), to: path, what: "the plan", context) else {
            throw .reported
        }
    }
}
