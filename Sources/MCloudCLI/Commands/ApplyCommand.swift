import Foundation
import MCloudEngine
import MCloudViews
import MCloudState
import MCloudCore
import MCloudProvider

/// `mcloud apply`: makes the clouds match the manifests, or carries out a saved plan exactly.
struct ApplyCommand: Command {
    static let spec = CommandSpec(
        name: "apply",
        abstract: "Create, update and delete resources so the clouds match the manifests.",
        discussion: "Without PLANFILE, plans first and asks for 'yes' (or --auto-approve). With PLANFILE (from 'mcloud plan --out'), does exactly what it lists, and refuses a plan made from another state than the current one. Resources change in dependency order, up to --parallelism at once; the state is written after each one, so an interrupted or failed apply continues where it stopped on the next run. Ctrl-C or SIGTERM once stops starting new changes (before any change, it stops at once); twice exits at once. Either way the state lock is released.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            StateOptions.option,
            PlanRunner.target,
            PlanRunner.recovered,
        ] + ApprovalOptions.options(approving: "Apply") + [
            CommandSpec.Option(names: ["--no-refresh"], valueName: nil, help: "Plan from the state alone, reading nothing from the clouds first."),
        ],
        positionals: [CommandSpec.Positional(name: "PLANFILE", help: "A plan saved by 'mcloud plan --out'.", isOptional: true)]
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var targets: [String]
    var recovered: [String]
    var planFile: String?
    var approval: ApprovalOptions
    var refresh: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        targets = arguments.all(PlanRunner.target.canonicalName)
        recovered = arguments.all(PlanRunner.recovered.canonicalName)
        planFile = arguments.positionals.first
        approval = try ApprovalOptions(arguments)
        refresh = !arguments.flag("--no-refresh")
        if planFile != nil, !refresh { throw UsageError(message: "--no-refresh applies to planning; a saved plan is already planned") }
        if planFile != nil, !recovered.isEmpty { throw UsageError(message: "--recovered applies to planning; a saved plan is already planned") }
        if !refresh, !recovered.isEmpty { throw UsageError(message: "--recovered reads the recovered cloud again, which --no-refresh would not") }
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let backend = try state.backend()
        return try await ApplyRunner.withLock(backend, operation: "apply", context) { _, interrupts throws(CommandFailure) in
            let stored = try StateOptions.read(backend)
            if let planFile { return try await applySaved(planFile, state: stored, backend: backend, interrupts: interrupts, context) }
            let made = try await PlanRunner.plan(.apply, manifests: manifests, state: stored, refresh: refresh, targets: targets, recovering: Set(recovered), context)
            return try await ApplyRunner.carryOut(
                made, question: "Do you want to perform these actions?", consequence: "nothing was changed", state: stored, backend: backend, interrupts: interrupts,
                approval: approval, context
            )
        }
    }

    private func applySaved(
        _ file: String, state: State?, backend: any StateBackend, interrupts: InterruptHandler?, _ context: CommandContext
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
        let complete = try restoringRedactedValues(plan, file: file, context)
        document.deployment = complete
        return try await ApplyRunner.execute(
            document, complete, clouds: clouds, state: state, backend: backend, interrupts: interrupts, parallelism: approval.parallelism, context
        )
    }

    /// A saved plan never holds a secret: a value under a secret-looking name (an env var `DB_PASSWORD`) is saved
    /// redacted. Such values come back from the manifests, which must be the very files the plan was made from.
    private func restoringRedactedValues(_ plan: DeploymentPlan, file: String, _ context: CommandContext) throws(CommandFailure) -> DeploymentPlan {
        let marker = SecretRedaction.marker.serialized(pretty: false)
        guard plan.changes.contains(where: { $0.after.map { $0.body.serialized(pretty: false).contains(marker) } ?? false }) else { return plan }
        guard DeploymentInputs.digest(manifests) == plan.inputDigest else {
            throw CommandFailure("\(file) holds redacted secret values, and the manifests are not the ones it was planned from; run 'mcloud plan --out \(file)' again")
        }
        let inputs = try DeploymentInputs.load(manifests, lost: Set(plan.lost), context)
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
