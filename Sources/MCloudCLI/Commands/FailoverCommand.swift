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
        discussion: "Places the application as if each CLOUD were gone (under every rule, as 'plan --lose' shows), and plans the move: services to their new clusters, each database cell whose primary was in a lost cloud recreated in its new cloud with its server restoring, as it boots, the newest backup of the lost server in the cell's DR leg (read from the bucket: the plan states it and its age, the recovery point), its dependants' endpoints switched, and DR legs that were lost chosen again. A cell without a DR leg starts empty, and the plan says so. Nothing in a lost cloud is read or deleted: the state records the clouds as lost (so later plans leave them out too) and keeps their resources, until --forget-lost drops them or 'plan --recovered CLOUD' cleans them up once the cloud is back; the DR legs restored from are retained as they are until destroy. Refuses, before changing anything, a cell it cannot restore: a DR leg lost with its primary or holding no backup, a managed engine on either side, or a kept primary that would be replaced. Asks for 'yes' unless --auto-approve; an interrupted failover continues where it stopped when run again.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            StateOptions.option,
            CommandSpec.Option(names: ["--auto-approve"], valueName: nil, help: "Fail over without asking for confirmation."),
            CommandSpec.Option(names: ["--parallelism"], valueName: "N", help: "Change at most N resources at once (default: 10)."),
            CommandSpec.Option(
                names: ["--out"], valueName: "FILE",
                help: "Save the failover's plan for 'mcloud apply FILE' (a reviewed two-step failover) instead of applying it."
            ),
            CommandSpec.Option(
                names: ["--forget-lost"], valueName: nil,
                help: "Then drop what the state records in the lost clouds (it is left in those clouds as it is)."
            ),
        ],
        positionals: [CommandSpec.Positional(name: "CLOUD", help: "A lost cloud; several may be given.", isOptional: false, isRepeatable: true)]
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var clouds: [String]
    var autoApprove: Bool
    var parallelism: Int
    var forgetLost: Bool
    var out: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        clouds = arguments.positionals
        autoApprove = arguments.flag("--auto-approve")
        parallelism = try ApplyCommand.parallelism(arguments)
        forgetLost = arguments.flag("--forget-lost")
        out = arguments.value("--out")
        if out != nil, forgetLost || autoApprove {
            throw UsageError(message: "--out saves the plan and changes nothing, so \(forgetLost ? "--forget-lost" : "--auto-approve") does not apply")
        }
    }

    func run(_ context: CommandContext) async -> ExitCode {
        guard let backend = state.backend(context) else { return .failure }
        return await ApplyRunner.withLock(backend, operation: "failover", context) { _, interrupts in
            let stored = StateOptions.read(backend, context)
            guard stored.ok else { return .failure }
            guard let recorded = stored.state, !recorded.resources.isEmpty else {
                context.stderr.write("error: the state records nothing: there is nothing to fail over (apply first, or pass the state with --state)\n")
                return .failure
            }
            guard let model = PlanRunner.model(manifests, context) else { return .failure }
            let names = model.clouds.map(\.name)
            for cloud in clouds where !names.contains(cloud) {
                context.stderr.write("error: no cloud named '\(cloud)'\(Suggestion.didYouMean(cloud, in: names).replacingQuotes)\n")
                return .failure
            }
            let lost = Set(clouds).union(recorded.lost)
            guard var inputs = DeploymentInputs.load(manifests, lost: lost, context) else { return .failure }
            let registry = ProviderRegistry(environment: context.environment)
            let restores: [(point: RecoveryPoints.Point, backup: BackupObject)]
            let needs: [RecoveryPoints.Need]
            do throws(EngineError) {
                needs = try RecoveryPoints.needs(desired: inputs.desired, state: recorded, lost: lost)
                do throws(ProviderError) {
                    restores = try await RecoveryPointReader(clouds: inputs.clouds, registry: registry).points(needs)
                } catch {
                    throw EngineError("reading the DR legs: \(error.message)")
                }
            } catch {
                context.stderr.write("error: \(error.message)\nNothing was changed.\n")
                return .failure
            }
            inputs.desired = RecoveryPoints.applying(restores.map(\.point), to: inputs.desired)
            guard let made = await PlanRunner.apply(
                inputs, state: recorded, refresh: true, targets: [], losing: lost, retaining: Set(needs.compactMap(\.leg?.address)), context
            ) else { return .failure }
            let losses = RecoveryPoints.dataLosses(made.deployment)
            guard losses.isEmpty else {
                for loss in losses { context.stderr.write("error: \(loss)\n") }
                context.stderr.write("Nothing was changed: move the DR leg with a plain 'mcloud apply' once the primary's data is safe elsewhere.\n")
                return .failure
            }
            let empty = needs.filter { $0.leg == nil }.map(\.cell)
            context.stdout.write(Self.header(lost: lost.sorted(), restores: restores, empty: empty, now: Int(Date().timeIntervalSince1970)))
            context.stdout.write(PlanView.render(made.document, explain: false, color: context.usesColor))
            guard PlanRunner.enforce(made.document.policy, consequence: out.map { "\($0) was not saved" } ?? "nothing was changed", context) else {
                return .failure
            }
            if let out {
                guard PlanRunner.save(made.document.json, to: out, context) else { return .failure }
                context.stdout.write("\nSaved the failover's plan to \(out). Apply exactly this with: mcloud apply \(out)\n")
                return .success
            }
            if made.deployment.hasChanges {
                guard ApplyRunner.confirmed("Do you want to fail over?", autoApprove: autoApprove, context) else { return .failure }
                let code = await ApplyRunner.execute(
                    made.document, made.deployment, clouds: made.clouds, state: recorded, backend: backend, interrupts: interrupts,
                    parallelism: parallelism, context
                )
                guard code == .success else { return code }
            } else {
                context.stdout.write("\nNothing left to move off \(lost.sorted().joined(separator: ", ")).\n")
            }
            return forgetLost ? await forget(lost, backend: backend, context) : .success
        }
    }

    /// What the failover restores, with each backup's age now: the recovery point.
    static func header(lost: [String], restores: [(point: RecoveryPoints.Point, backup: BackupObject)], empty: [String], now: Int) -> String {
        var out = "Failover off \(lost.joined(separator: ", ")):\n"
        if restores.isEmpty, empty.isEmpty {
            out += "  no database primary to restore\n"
        }
        for cell in empty {
            out += "  \(cell) starts empty in its new cloud: it has no DR leg (backup.disasterRecovery) to restore from\n"
        }
        for (point, backup) in restores.sorted(by: { $0.point.server < $1.point.server }) {
            out += "  \(point.server) restores s3://\(point.bucket)/\(point.object) (\(backup.size) bytes) from \(point.cloud): "
            out += "recovery point \(point.takenAt), \(BackupsView.duration(now - backup.time)) old\n"
        }
        return out + "\n"
    }

    /// `--forget-lost`: the lost clouds' resources leave the state; the clouds stay recorded as lost.
    private func forget(_ lost: Set<String>, backend: any StateBackend, _ context: CommandContext) async -> ExitCode {
        do throws(StateError) {
            guard let current = try backend.read() else { return .success }
            let gone = try await StateRecorder(state: current, backend: backend).forgetResources(in: lost)
            guard !gone.isEmpty else { return .success }
            context.stdout.write("Forgot \(gone.count) resource\(gone.count == 1 ? "" : "s") in \(lost.sorted().joined(separator: ", ")); they are left in those clouds as they are.\n")
            return .success
        } catch {
            context.stderr.write("error: forgetting the lost clouds' resources: \(error)\n")
            return .failure
        }
    }
}
