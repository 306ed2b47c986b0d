import MCloudEngine
import MCloudViews

/// `mcloud destroy`: deletes everything the state records, dependents first.
struct DestroyCommand: Command {
    static let spec = CommandSpec(
        name: "destroy",
        abstract: "Delete every resource mcloud created for the application, in reverse dependency order.",
        discussion: "Refreshes what the state records, shows what will be deleted and asks for 'yes' (or --auto-approve). Progress, parallelism, Ctrl-C and the state are handled as in apply.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            StateOptions.option,
            PlanRunner.target,
            CommandSpec.Option(names: ["--auto-approve"], valueName: nil, help: "Destroy without asking for confirmation."),
            CommandSpec.Option(names: ["--parallelism"], valueName: "N", help: "Delete at most N resources at once (default: 10)."),
        ]
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var targets: [String]
    var autoApprove: Bool
    var parallelism: Int

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        targets = arguments.all(PlanRunner.target.canonicalName)
        autoApprove = arguments.flag("--auto-approve")
        parallelism = try ApplyCommand.parallelism(arguments)
    }

    func run(_ context: CommandContext) async -> ExitCode {
        guard let backend = state.backend(context) else { return .failure }
        return await ApplyRunner.withLock(backend, operation: "destroy", context) { _, interrupts in
            let stored = StateOptions.read(backend, context)
            guard stored.ok else { return .failure }
            guard let made = await PlanRunner.plan(.destroy, manifests: manifests, state: stored.state, refresh: true, targets: targets, context) else {
                return .failure
            }
            context.stdout.write(PlanView.render(made.document, explain: false, color: context.usesColor))
            guard PlanRunner.enforce(made.document.policy, consequence: "nothing was destroyed", context) else { return .failure }
            guard made.deployment.hasChanges else {
                return await ApplyRunner.recordUnchanged(made.document, made.deployment, state: stored.state, backend: backend, context) ? .success : .failure
            }
            guard ApplyRunner.confirmed("Do you really want to destroy all resources?", autoApprove: autoApprove, context) else {
                return .failure
            }
            return await ApplyRunner.execute(
                made.document, made.deployment, clouds: made.clouds, state: stored.state, backend: backend, interrupts: interrupts, parallelism: parallelism, context
            )
        }
    }
}
