import MCloudViews
import MCloudCore
import MCloudEngine
import MCloudPlanner
import MCloudProvider

/// `mcloud plan`: where every cell runs, what it costs and why, and exactly what apply would change.
struct PlanCommand: Command {
    static let spec = CommandSpec(
        name: "plan",
        abstract: "Place every service and database across the clouds at minimum cost and show what apply would change.",
        discussion: "Every hard rule holds: capability, residency, latency, spread, the DR leg and capacity. The plan reports its cost, a lower bound on any placement's cost, for every cell the clouds considered (with what the cell would cost there) and the reasons each other cloud was not used; then it refreshes what the state records from the clouds and lists each resource to create, update, replace or delete, with its reason and any change made outside mcloud. With a state, it shows the monthly cost recorded at the last apply against the cost after the plan. Every Policy rule gets a verdict; a failed mandatory one is an error and the plan is not saved. With --placement-only it stops after the placement, reading no state and no cloud, and judges only the rules the placement shows (cost ceiling, residency; the others are 'not judged'); it does so by itself, with a note, when clouds the placement uses have no endpoints in the catalog and there is no state. Exits 1 when the input is invalid, no placement meets every rule or a mandatory policy rule fails; with --detailed-exitcode, 2 when there are changes. With --lose or --lose-vendor it is a what-if: the placement as if those clouds were gone beside the current one, the cells that move and those that can no longer be placed, and the cost of each; it reads no state, exits 1 when a cell cannot be placed and, with --detailed-exitcode, 2 when a cell moves.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            StateOptions.option,
            PlanRunner.target,
            PlanRunner.recovered,
            CommandSpec.Option(names: ["--out"], valueName: "FILE", help: "Save the plan for 'mcloud apply FILE', which then does exactly this."),
            CommandSpec.Option(
                names: ["--json"], valueName: nil,
                help: "Print the plan as JSON (docs/cli.md's format) on stdout: per cell the placement, the runner-up and the rejected clouds counted by reason."
            ),
            CommandSpec.Option(names: ["--detailed-exitcode"], valueName: nil, help: "Exit 0 without changes, 2 with changes, 1 on error."),
            CommandSpec.Option(names: ["--no-refresh"], valueName: nil, help: "Take the state as the truth; read nothing from the clouds."),
            CommandSpec.Option(
                names: ["--explain"], valueName: nil,
                help: "Also print every rejected cloud's reasons for every cell (with --json: every considered cloud and every reason)."
            ),
            CommandSpec.Option(
                names: ["--placement-only"], valueName: nil,
                help: "Only the placement, cost, bound and reasons: no state, no cloud, no credentials, no endpoints needed."
            ),
            WhatIfRunner.lose,
            WhatIfRunner.loseVendor,
        ]
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var targets: [String]
    var recovered: [String]
    var out: String?
    var json: Bool
    var detailedExitCode: Bool
    var refresh: Bool
    var explain: Bool
    var placementOnly: Bool
    var whatIf: WhatIfRunner.Request

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        targets = arguments.all(PlanRunner.target.canonicalName)
        recovered = arguments.all(PlanRunner.recovered.canonicalName)
        out = arguments.value("--out")
        json = arguments.flag("--json")
        detailedExitCode = arguments.flag("--detailed-exitcode")
        refresh = !arguments.flag("--no-refresh")
        explain = arguments.flag("--explain")
        placementOnly = arguments.flag("--placement-only")
        if !refresh, !recovered.isEmpty { throw UsageError(message: "--recovered reads the recovered cloud again, which --no-refresh would not") }
        if placementOnly {
            let planning = [
                (StateOptions.option.canonicalName, arguments.value(StateOptions.option.canonicalName) != nil), ("--target", !targets.isEmpty),
                ("--detailed-exitcode", detailedExitCode), ("--no-refresh", !refresh), ("--recovered", !recovered.isEmpty),
            ]
            if let (option, _) = planning.first(where: \.1) {
                throw UsageError(message: "--placement-only reads no state and plans no resource changes, so \(option) does not apply")
            }
        }
        whatIf = WhatIfRunner.Request(
            clouds: arguments.all(WhatIfRunner.lose.canonicalName), vendors: arguments.all(WhatIfRunner.loseVendor.canonicalName),
            json: json, explain: explain, detailedExitCode: detailedExitCode
        )
        if !whatIf.isEmpty {
            let stateful = [
                ("--out", out != nil), ("--target", !targets.isEmpty), ("--no-refresh", !refresh), ("--recovered", !recovered.isEmpty),
                ("--state", arguments.value(StateOptions.option.canonicalName) != nil), ("--placement-only", placementOnly),
            ]
            if let (flag, _) = stateful.first(where: { $0.1 }) {
                throw UsageError(message: "\(flag) does not go with --lose or --lose-vendor: a what-if places only, without the state or the clouds")
            }
        }
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        if !whatIf.isEmpty { return try WhatIfRunner.run(whatIf, manifests: manifests, context) }
        if placementOnly {
            let (model, plan) = try PlacementLoader.plan(manifests, explain: explain, reasons: reasons, context)
            try output(PlacementOnly.document(PlacementReport(plan), model: model, note: PlacementOnly.requested), context)
            return .success
        }
        let stored = try StateOptions.read(try state.backend())
        let inputs = try DeploymentInputs.load(manifests, lost: Set(stored?.lost ?? []), explain: explain, reasons: reasons, context)
        // A what-if on a catalog of price lists: nothing to refresh and nowhere to connect, so the placement is the
        // answer. Not when the caller asked for what only a deployment plan has.
        let bare = inputs.cloudsWithoutEndpoints
        if !bare.isEmpty, stored?.resources.isEmpty ?? true, out == nil, targets.isEmpty, !detailedExitCode {
            let note = PlacementOnly.missingEndpoints(bare)
            if json { context.stderr.write("note: placement only: \(note)\n") }
            try output(PlacementOnly.document(PlacementReport(inputs.placementPlan), model: inputs.model, note: note), context)
            return .success
        }
        let made = try await PlanRunner.apply(inputs, state: stored, refresh: refresh, targets: targets, recovering: Set(recovered), context)
        try output(made.document, context)
        return detailedExitCode && made.deployment.hasChanges ? .changes : .success
    }

    /// Every reason and considered cloud only where they are shown or saved: --explain, and a saved plan, which is
    /// whole; at hundreds of clouds they take more time and memory than the search (docs/cli.md).
    private var reasons: Planner.Explanations { explain || out != nil ? .every : .counted }

    /// Prints the plan (human or JSON) and saves it with --out.
    private func output(_ document: PlanDocument, _ context: CommandContext) throws(CommandFailure) {
        // Encoded only when it is printed or saved, and once when both are whole: with thousands of resources the JSON
        // is the larger part of a plan without refresh. A saved plan is whole, as `report --plan` draws every cloud.
        let encoded = out != nil || (json && explain) ? document.json : nil
        if json {
            context.stdout.write((explain ? encoded ?? document.json : document.json(explained: false)).serialized() + "\n")
        } else {
            context.stdout.write(PlanView.render(document, explain: explain, color: context.usesColor))
        }
        try PlanRunner.enforce(document.policy, consequence: out.map { "\($0) was not saved" } ?? "apply would refuse it", context)
        if let out, let encoded {
            try PlanRunner.save(encoded, to: out, context)
            if !json {
                let next = document.deployment == nil ? "Show it with: mcloud show \(out); draw it with: mcloud report --plan \(out) --out report.html" : "Apply exactly this with: mcloud apply \(out)"
                context.stdout.write("\nSaved the plan to \(out). \(next)\n")
            }
        }
    }
}
