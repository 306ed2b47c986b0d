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
            if let planFile {
                return try await SavedPlan(file: planFile, manifests: manifests).apply(
                    state: stored, backend: backend, interrupts: interrupts, parallelism: approval.parallelism, context
                )
            }
            let made = try await PlanRunner.plan(.apply, manifests: manifests, state: stored, refresh: refresh, targets: targets, recovering: Set(recovered), context)
            return try await ApplyRunner.carryOut(
                made, question: "Do you want to perform these actions?", consequence: "nothing was changed", state: stored, backend: backend, interrupts: interrupts,
                approval: approval, context
            )
        }
    }
}
