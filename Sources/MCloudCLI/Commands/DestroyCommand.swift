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
        ] + ApprovalOptions.options(approving: "Destroy", verb: "Delete")
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var targets: [String]
    var approval: ApprovalOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        targets = arguments.all(PlanRunner.target.canonicalName)
        approval = try ApprovalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let backend = try state.backend()
        return try await ApplyRunner.withLock(backend, operation: "destroy", context) { _, interrupts throws(CommandFailure) in
            let stored = try StateOptions.read(backend)
            let made = try await PlanRunner.plan(.destroy, manifests: manifests, state: stored, refresh: true, targets: targets, context)
            return try await ApplyRunner.carryOut(
                made, question: "Do you really want to destroy all resources?", consequence: "nothing was destroyed", state: stored, backend: backend, interrupts: interrupts,
                approval: approval, context
            )
        }
    }
}
