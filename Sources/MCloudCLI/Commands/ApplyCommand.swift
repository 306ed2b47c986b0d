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
            CommandSpec.Option(names: ["--auto-approve"], valueName: nil, help: "Apply without asking for confirmation."),
            CommandSpec.Option(names: ["--parallelism"], valueName: "N", help: "Change at most N resources at once (default: 10)."),
            CommandSpec.Option(names: ["--no-refresh"], valueName: nil, help: "Plan from the state alone, reading nothing from the clouds first."),
        ],
        positionals: [CommandSpec.Positional(name: "PLANFILE", help: "A plan saved by 'mcloud plan --out'.", isOptional: true)]
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var targets: [String]
    var recovered: [String]
    var planFile: String?
    var autoApprove: Bool
    var parallelism: Int
    var refresh: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        targets = arguments.all(PlanRunner.target.canonicalName)
        recovered = arguments.all(PlanRunner.recovered.canonicalName)
        planFile = arguments.positionals.first
        autoApprove = arguments.flag("--auto-approve")
        refresh = !arguments.flag("--no-refresh")
        parallelism = try Self.parallelism(arguments)
        if planFile != nil, !refresh { throw UsageError(message: "--no-refresh applies to planning; a saved plan is already planned") }
        if planFile != nil, !recovered.isEmpty { throw UsageError(message: "--recovered applies to planning; a saved plan is already planned") }
        if !refresh, !recovered.isEmpty { throw UsageError(message: "--recovered reads the recovered cloud again, which --no-refresh would not") }
    }

    static func parallelism(_ arguments: ParsedArguments) throws(UsageError) -> Int {
        guard let text = arguments.value("--parallelism") else { return 10 }
        guard let value = Int(text), (1...1000).contains(value) else {
            throw UsageError(message: "--parallelism must be a whole number from 1 to 1000, not \"\(text)\"")
        }
        return value
    }

    func run(_ context: CommandContext) async -> ExitCode {
        guard let backend = state.backend(context) else { return .failure }
        return await ApplyRunner.withLock(backend, operation: "apply", context) { _, interrupts in
            let stored = StateOptions.read(backend, context)
            guard stored.ok else { return .failure }
            if let planFile { return await applySaved(planFile, state: stored.state, backend: backend, interrupts: interrupts, context) }
            guard let made = await PlanRunner.plan(
                .apply, manifests: manifests, state: stored.state, refresh: refresh, targets: targets, recovering: Set(recovered), context
            ) else {
                return .failure
            }
            context.stdout.write(PlanView.render(made.document, explain: false, color: context.usesColor))
            guard PlanRunner.enforce(made.document.policy, consequence: "nothing was changed", context) else { return .failure }
            guard made.deployment.hasChanges else {
                return await ApplyRunner.recordUnchanged(made.document, made.deployment, state: stored.state, backend: backend, context) ? .success : .failure
            }
            guard ApplyRunner.confirmed("Do you want to perform these actions?", autoApprove: autoApprove, context) else { return .failure }
            return await ApplyRunner.execute(
                made.document, made.deployment, clouds: made.clouds, state: stored.state, backend: backend, interrupts: interrupts, parallelism: parallelism, context
            )
        }
    }

    private func applySaved(_ file: String, state: State?, backend: any StateBackend, interrupts: InterruptHandler?, _ context: CommandContext) async -> ExitCode {
        guard let data = FileManager.default.contents(atPath: file) else {
            context.stderr.write("error: cannot read the plan file \(file)\n")
            return .failure
        }
        var document: PlanDocument
        do throws(PlanDocument.Failure) {
            document = try PlanDocument.parse(Array(data), file: file)
        } catch {
            context.stderr.write("error: \(error.description)\n")
            return .failure
        }
        // plan --out saves no plan that fails a mandatory rule; a file that says otherwise was not made so.
        guard PlanRunner.enforce(document.policy, consequence: "\(file) is not applied", context) else { return .failure }
        guard let plan = document.deployment else {
            context.stderr.write("error: \(file) is a placement-only plan, which changes nothing; plan without --placement-only (the clouds need endpoints) and apply that\n")
            return .failure
        }
        let current = DeploymentPlan.StateReference(state)
        guard current == plan.state else {
            let made = plan.state.lineage == nil ? "no state" : "state serial \(plan.state.serial)"
            let now = current.lineage == nil ? "there is no state" : "the state is at serial \(current.serial)"
            context.stderr.write("error: stale plan: \(file) was made from \(made), but \(now)\(current.lineage != plan.state.lineage && current.lineage != nil && plan.state.lineage != nil ? " of another lineage" : ""); nothing was changed. Run 'mcloud plan --out \(file)' again.\n")
            return .failure
        }
        guard let model = PlanRunner.model(manifests, context) else { return .failure }
        if model.application.name != plan.application {
            context.stderr.write("error: \(file) plans application \(plan.application), but the manifests describe \(model.application.name)\n")
            return .failure
        }
        let clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        guard let complete = restoringRedactedValues(plan, file: file, context) else { return .failure }
        document.deployment = complete
        return await ApplyRunner.execute(document, complete, clouds: clouds, state: state, backend: backend, interrupts: interrupts, parallelism: parallelism, context)
    }

    /// A saved plan never holds a secret: a value under a secret-looking name (an env var `DB_PASSWORD`) is saved
    /// redacted. Such values come back from the manifests, which must be the very files the plan was made from.
    private func restoringRedactedValues(_ plan: DeploymentPlan, file: String, _ context: CommandContext) -> DeploymentPlan? {
        let marker = SecretRedaction.marker.serialized(pretty: false)
        guard plan.changes.contains(where: { $0.after.map { $0.body.serialized(pretty: false).contains(marker) } ?? false }) else { return plan }
        guard DeploymentInputs.digest(manifests) == plan.inputDigest, let inputs = DeploymentInputs.load(manifests, lost: Set(plan.lost), context) else {
            context.stderr.write("error: \(file) holds redacted secret values, and the manifests are not the ones it was planned from; run 'mcloud plan --out \(file)' again\n")
            return nil
        }
        let bodies = Dictionary(inputs.desired.map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
        var restored = plan
        restored.changes = plan.changes.map { change in
            var change = change
            if let address = change.after?.address, var desired = bodies[address] {
                // A failover's recovery point was read from a bucket when it was planned, not from the manifests.
                if let point = change.after?.body.value(at: ["spec", "restore"]) {
                    desired.body = ResourceBody(desired.body).settingSpec(["restore"], point).document
                }
                change.after = desired
            }
            return change
        }
        return restored
    }
}
