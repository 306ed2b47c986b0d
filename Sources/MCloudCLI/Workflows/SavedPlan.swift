import MCloudCore
import MCloudEngine
import MCloudPlanner
import MCloudProvider
import MCloudViews

/// `apply PLANFILE`: a plan saved by `plan --out` (or `failover --out`), carried out exactly as it was reviewed.
struct SavedPlan {
    var file: String
    /// The manifests the plan was made from: they give the catalog's clouds and the values saved redacted.
    var manifests: ManifestOptions

    /// Applies the plan exactly, refusing one made from another state than `state`, for other manifests, or that
    /// breaks a mandatory policy rule.
    func apply(
        state: State?, backend: any StateBackend, interrupts: InterruptHandler?, parallelism: Int, _ context: CommandContext
    ) async throws(CommandFailure) -> ExitCode {
        var document = try PlanRunner.read(file)
        // plan --out saves no plan that fails a mandatory rule; a file that says otherwise was not made so.
        try PlanRunner.enforce(document.policy, consequence: "\(file) is not applied", context)
        guard let plan = document.deployment else {
            throw CommandFailure("\(file) is a placement-only plan, which changes nothing; plan without --placement-only (the clouds need endpoints) and apply that")
        }
        let current = DeploymentPlan.StateReference(state)
        guard current == plan.state else {
            let made = plan.state.lineage == nil ? "no state" : "state serial \(plan.state.serial)"
            let now = current.lineage == nil ? "there is no state" : "the state is at serial \(current.serial)"
            let lineage = current.lineage != plan.state.lineage && current.lineage != nil && plan.state.lineage != nil ? " of another lineage" : ""
            throw CommandFailure("stale plan: \(file) was made from \(made), but \(now)\(lineage); nothing was changed. Run 'mcloud plan --out \(file)' again.")
        }
        let model = try PlacementLoader.model(manifests, context)
        if model.application.name != plan.application {
            throw CommandFailure("\(file) plans application \(plan.application), but the manifests describe \(model.application.name)")
        }
        let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let complete = try restoringRedactedValues(plan, context)
        document.deployment = complete
        return try await ApplyRunner.execute(
            document, complete, clouds: clouds, state: state, backend: backend, interrupts: interrupts, parallelism: parallelism, context
        )
    }

    /// A saved plan never holds a secret: a value under a secret-looking name (an env var `DB_PASSWORD`) is saved
    /// redacted. Such values come back from the manifests, which must be the very files the plan was made from.
    private func restoringRedactedValues(_ plan: DeploymentPlan, _ context: CommandContext) throws(CommandFailure) -> DeploymentPlan {
        let marker = SecretRedaction.marker.serialized(pretty: false)
        guard plan.changes.contains(where: { $0.after.map { $0.body.serialized(pretty: false).contains(marker) } ?? false }) else { return plan }
        guard DeploymentInputs.digest(manifests) == plan.inputDigest else {
            throw CommandFailure("\(file) holds redacted secret values, and the manifests are not the ones it was planned from; run 'mcloud plan --out \(file)' again")
        }
        let inputs = try DeploymentInputs.load(manifests, lost: Set(plan.lost), reasons: .none, context)
        let bodies = Dictionary(inputs.desired.map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
        var restored = plan
        restored.changes = plan.changes.map { change in
            var change = change
            if let address = change.after?.address, var desired = bodies[address] {
                // A failover's recovery point was read from a bucket when it was planned, not from the manifests.
                if let point = change.after.flatMap({ ResourceBody($0.body).restore }) {
                    desired.body = ResourceBody(desired.body).restoring(point).document
                }
                change.after = desired
            }
            return change
        }
        return restored
    }
}
