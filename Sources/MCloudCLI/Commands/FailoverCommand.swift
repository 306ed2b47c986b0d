import Foundation
import MCloudCore
import MCloudDatabaseEngines
import MCloudEngine
import MCloudPlanner
import MCloudProvider
import MCloudRender
import MCloudViews

/// `mcloud failover CLOUD...`: moves what ran in lost clouds elsewhere, databases with their data.
struct FailoverCommand: Command {
    static let spec = CommandSpec(
        name: "failover",
        abstract: "Move everything off lost clouds: services re-placed, databases recreated and restored from their DR leg.",
        discussion: "Places the application as if each CLOUD were gone (under every rule, as 'plan --lose' shows), and plans the move: services to their new clusters, each database cell whose primary was in a lost cloud recreated in its new cloud with its server restoring, as it boots, the newest backup of the lost server in the cell's DR leg (read from the bucket: the plan states it and its age, the recovery point), its dependants' endpoints switched, and DR legs that were lost chosen again. A server restoring from a DR leg on AWS reads it with a restore user of its own that the plan makes; once applied, the failover waits for that restore's report (--timeout), prints how it ended and deletes the user. A cell without a DR leg starts empty, and the plan says so. Nothing in a lost cloud is read or deleted: the state records the clouds as lost (so later plans leave them out too) and keeps their resources, until --forget-lost drops them or 'plan --recovered CLOUD' cleans them up once the cloud is back; the DR legs restored from are retained as they are until destroy. Refuses, before changing anything, a cell it cannot restore: a DR leg lost with its primary or holding no backup, a managed engine on either side, or a kept primary that would be replaced. Asks for 'yes' unless --auto-approve; an interrupted failover continues where it stopped when run again.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            StateOptions.option,
        ] + ApprovalOptions.options(approving: "Fail over") + [
            CommandSpec.Option(
                names: ["--out"], valueName: "FILE",
                help: "Save the failover's plan for 'mcloud apply FILE' (a reviewed two-step failover) instead of applying it."
            ),
            CommandSpec.Option(
                names: ["--forget-lost"], valueName: nil,
                help: "Then drop what the state records in the lost clouds (it is left in those clouds as it is)."
            ),
            RestoreTimeout.option(waitingFor: "a restore from a DR leg on AWS, whose restore user is deleted then"),
            RecoveryTarget.option,
            CommandSpec.Option(
                names: ["--json"], valueName: nil,
                help: "Print the failover's report as JSON (docs/dr.md), progress on standard error; needs --auto-approve or --out."
            ),
        ],
        positionals: [CommandSpec.Positional(name: "CLOUD", help: "A lost cloud; several may be given.", isOptional: false, isRepeatable: true)]
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var clouds: [String]
    var approval: ApprovalOptions
    var json: Bool
    var forgetLost: Bool
    var out: String?
    var timeout: Int
    var target: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        clouds = arguments.positionals
        approval = try ApprovalOptions(arguments)
        forgetLost = arguments.flag("--forget-lost")
        out = arguments.value("--out")
        json = arguments.flag("--json")
        timeout = try RestoreTimeout.seconds(arguments)
        target = try RecoveryTarget.time(arguments)
        if out != nil, forgetLost || approval.autoApprove {
            throw UsageError(message: "--out saves the plan and changes nothing, so \(forgetLost ? "--forget-lost" : "--auto-approve") does not apply")
        }
        if json, out == nil, !approval.autoApprove {
            throw UsageError(message: "--json leaves no place to ask for confirmation: add --auto-approve, or save the plan with --out")
        }
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let backend = try state.backend()
        return try await ApplyRunner.withLock(backend, operation: "failover", context) { _, interrupts throws(CommandFailure) in
            let workflow = FailoverWorkflow(manifests: manifests, clouds: clouds, timeout: timeout, context: context, target: target)
            // With --json, standard output holds the report alone; what is printed on the way goes to standard error.
            var progress = context
            if json { progress.stdout = context.stderr }
            let report = try await workflow.run(
                recorded: try StateOptions.read(backend), backend: backend, interrupts: interrupts, approval: approval, out: out, forgetLost: forgetLost,
                progress: progress
            )
            if json { context.stdout.write(report.json.serialized() + "\n") }
            return .success
        }
    }
}
