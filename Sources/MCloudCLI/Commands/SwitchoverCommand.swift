import MCloudCore
import MCloudDatabaseEngines
import MCloudEngine
import MCloudPlanner
import MCloudProvider
import MCloudSecrets
import MCloudViews

/// `mcloud switchover CELL`: moves a PostgreSQL cell's primary to one of its standbys, losing nothing.
struct SwitchoverCommand: Command {
    static let spec = CommandSpec(
        name: "switchover",
        abstract: "Move a PostgreSQL cell's primary to a standby in a planned switchover that loses no committed row.",
        discussion: "Reads the cell's members from the state and the primary's newest replication report from the DR leg, and refuses unless the target follows within 60 s in a fresh report, and its members archive into that leg (they take orders from that bucket only). Then writes an order signed with the cell's key (derived from the operator's age identity) into the bucket: the primary demotes and reports its last LSN, the standby replays past it and promotes, the old primary and the other standbys follow the new one. Waits for their steps (--timeout), records the new primary in the state, and rewires the connections: every EndpointSlice and egress policy that named the first primary is updated to the new one. failover stays the path for a lost primary; a primary moves to another cloud only by failover, never by itself (docs/dr.md). Asks for 'yes' unless --auto-approve; holds the state lock.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            StateOptions.option,
            CommandSpec.Option(names: ["--to"], valueName: "MEMBER", help: "The standby to promote, by its replication name (standby_2); the cell's first standby (standby_1) by default."),
            CommandSpec.Option(names: ["--timeout"], valueName: "SECONDS", help: "Give up waiting for the members after SECONDS, when the order also expires (default: 300)."),
        ] + ApprovalOptions.options(approving: "Switch over", verb: "Rewire"),
        positionals: [CommandSpec.Positional(name: "CELL", help: "The database cell, such as payments-db@eu.")]
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var cell: String
    var to: String?
    var timeout: Int
    var approval: ApprovalOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        cell = arguments.positionals.first ?? ""
        to = arguments.value("--to")
        approval = try ApprovalOptions(arguments)
        let text = arguments.value("--timeout") ?? "300"
        guard let seconds = Int(text), (30...3600).contains(seconds) else {
            throw UsageError(message: "--timeout must be a whole number of seconds from 30 to 3600, not \"\(text)\"")
        }
        timeout = seconds
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let backend = try state.backend()
        return try await ApplyRunner.withLock(backend, operation: "switchover", context) { _, interrupts throws(CommandFailure) in
            guard let recorded = try StateOptions.read(backend) else { throw CommandFailure("the state records nothing: apply first, or pass the state with --state") }
            let workflow = SwitchoverWorkflow(cell: cell, to: to, timeout: timeout, context: context)
            let setup = try workflow.prepare(recorded)
            let inputs = try DeploymentInputs.load(manifests, lost: Set(recorded.lost), reasons: .none, context)
            let lister: any BackupLister
            let serverProvider: any ResourceProvider
            do throws(ProviderError) {
                guard let legCloud = inputs.clouds[setup.leg.cloud], let serverCloud = inputs.clouds[setup.target.resource.cloud] else {
                    throw ProviderError(.unavailable, "the catalog has no cloud \(setup.leg.cloud) or \(setup.target.resource.cloud)")
                }
                guard let reader = try context.providerCatalog.provider(named: setup.leg.provider, for: legCloud) as? any BackupLister else {
                    throw ProviderError(.unavailable, "the \(setup.leg.provider) provider cannot write into buckets")
                }
                lister = reader
                serverProvider = try context.providerCatalog.provider(named: setup.target.resource.provider, for: serverCloud)
            } catch {
                throw CommandFailure("refused: \(error.message)")
            }
            let root: SecretRoot
            do throws(SecretsError) {
                root = SecretRoot(identity: try AgeKeyFile.load(environment: context.environment))
            } catch {
                throw CommandFailure("refused: the order is signed with a key derived from the operator's age identity, which is not available: \(error.description)")
            }
            let lag = try await workflow.caughtUp(setup, lister: lister)
            let address = try await workflow.targetAddress(setup, provider: serverProvider)
            context.stdout.write("Switchover of \(cell): \(setup.current.label) -> \(setup.target.label), \(Int(lag.lagSeconds.rounded())) s behind in the primary's last report.\n")
            try ApplyRunner.confirm("Do you want to switch over?", autoApprove: approval.autoApprove, context)
            let order = try workflow.order(setup, address: address)
            try await workflow.send(order, root: root, setup: setup, lister: lister)
            context.stdout.write("Wrote the signed order \(order.serial) to s3://\(setup.leg.providerID)/\(SwitchoverOrder.key(owner: setup.owner)); waiting for the members (up to \(timeout) s).\n")
            let steps = try await workflow.await(order, setup: setup, lister: lister)
            context.stdout.write("\(setup.current.name) demoted at LSN \(steps.demoted.lsn ?? "?"); \(setup.target.name) replayed past it and promoted.\n")
            for (member, step) in steps.others {
                if step?.step == "repointed" {
                    context.stdout.write("\(member) follows \(setup.target.name).\n")
                } else {
                    let why = step.map { "\($0.step): \($0.error ?? "no reason given")" } ?? "it wrote no step in time"
                    context.stderr.write("warning: \(member) did not follow \(setup.target.name) (\(why)); it still streams from \(setup.current.name), which follows \(setup.target.name); run 'journalctl -u mcloud-switchover' on it\n")
                }
            }
            let current: State
            do throws(StateError) {
                let stored = try backend.read() ?? recorded
                let recorder = StateRecorder(state: stored, backend: backend)
                try await recorder.record(primary: setup.target.resource.address, of: setup.first.resource.address)
                current = await recorder.state
            } catch {
                throw CommandFailure("\(setup.target.label) is the primary of \(cell), but the state could not record it: \(error); run the switchover again to record it")
            }
            try await rewire(setup, inputs: inputs, state: current, backend: backend, interrupts: interrupts, context)
            context.stdout.write("\(setup.target.label) is the primary of \(cell); \(setup.current.name) follows it.\n")
            return .success
        }
    }

    /// Updates what follows the first primary's addresses (EndpointSlices, egress policies) to the new primary's.
    private func rewire(
        _ setup: SwitchoverWorkflow.Setup, inputs: DeploymentInputs, state: State, backend: any StateBackend, interrupts: InterruptHandler?, _ context: CommandContext
    ) async throws(CommandFailure) {
        let first = setup.first.resource.address
        let followers = inputs.desired.filter { ResourceBody($0.body).endpointSources.contains(first) }.map(\.address.rawValue)
        guard !followers.isEmpty else { return }
        let made = try await PlanRunner.apply(inputs, state: state, refresh: true, targets: followers + [setup.target.resource.address.rawValue], context)
        guard made.deployment.hasChanges else { return }
        context.stdout.write("\nRewiring the connections of \(cell):\n")
        context.stdout.write(PlanView.render(made.document, explain: false, color: context.usesColor))
        _ = try await ApplyRunner.execute(
            made.document, made.deployment, clouds: made.clouds, state: state, backend: backend, interrupts: interrupts,
            parallelism: approval.parallelism, context
        )
    }
}
