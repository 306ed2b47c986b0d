import MCloudViews
import MCloudCore
import MCloudEngine

/// `mcloud plan`: where every cell runs, what it costs and why, and exactly what apply would change.
struct PlanCommand: Command {
    static let spec = CommandSpec(
        name: "plan",
        abstract: "Place every service and database across the clouds at minimum cost and show what apply would change.",
        discussion: "Every hard rule holds: capability, residency, latency, spread, the DR leg and capacity. The plan reports its cost, a lower bound on any placement's cost, and for every cell the reasons each other cloud was not used; then it refreshes what the state records from the clouds and lists each resource to create, update, replace or delete, with its reason and any change made outside mcloud. With a state, it shows the monthly cost recorded at the last apply against the cost after the plan. Every Policy rule gets a verdict; a failed mandatory one is an error and the plan is not saved. Exits 1 when the input is invalid, no placement meets every rule or a mandatory policy rule fails; with --detailed-exitcode, 2 when there are changes. With --lose or --lose-vendor it is a what-if: the placement as if those clouds were gone beside the current one, the cells that move and those that can no longer be placed, and the cost of each; it reads no state, exits 1 when a cell cannot be placed and, with --detailed-exitcode, 2 when a cell moves.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            StateOptions.option,
            PlanRunner.target,
            CommandSpec.Option(names: ["--out"], valueName: "FILE", help: "Save the plan for 'mcloud apply FILE', which then does exactly this."),
            CommandSpec.Option(names: ["--json"], valueName: nil, help: "Print the plan as JSON (cli.md's format) on stdout."),
            CommandSpec.Option(names: ["--detailed-exitcode"], valueName: nil, help: "Exit 0 without changes, 2 with changes, 1 on error."),
            CommandSpec.Option(names: ["--no-refresh"], valueName: nil, help: "Take the state as the truth; read nothing from the clouds."),
            CommandSpec.Option(names: ["--explain"], valueName: nil, help: "Also print every rejected cloud's reasons for every cell."),
            WhatIfRunner.lose,
            WhatIfRunner.loseVendor,
        ]
    )

    var manifests: ManifestOptions
    var state: StateOptions
    var targets: [String]
    var out: String?
    var json: Bool
    var detailedExitCode: Bool
    var refresh: Bool
    var explain: Bool
    var whatIf: WhatIfRunner.Request

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        state = try StateOptions(arguments)
        targets = arguments.all(PlanRunner.target.canonicalName)
        out = arguments.value("--out")
        json = arguments.flag("--json")
        detailedExitCode = arguments.flag("--detailed-exitcode")
        refresh = !arguments.flag("--no-refresh")
        explain = arguments.flag("--explain")
        if json, explain { throw UsageError(message: "--explain adds to the human view; --json already holds every reason") }
        whatIf = WhatIfRunner.Request(
            clouds: arguments.all(WhatIfRunner.lose.canonicalName), vendors: arguments.all(WhatIfRunner.loseVendor.canonicalName),
            json: json, explain: explain, detailedExitCode: detailedExitCode
        )
        if !whatIf.isEmpty {
            let stateful = [("--out", out != nil), ("--target", !targets.isEmpty), ("--no-refresh", !refresh), ("--state", arguments.value(StateOptions.option.canonicalName) != nil)]
            if let (flag, _) = stateful.first(where: { $0.1 }) {
                throw UsageError(message: "\(flag) does not go with --lose or --lose-vendor: a what-if places only, without the state or the clouds")
            }
        }
    }

    func run(_ context: CommandContext) async -> ExitCode {
        if !whatIf.isEmpty { return WhatIfRunner.run(whatIf, manifests: manifests, context) }
        guard let backend = state.backend(context) else { return .failure }
        let stored = StateOptions.read(backend, context)
        guard stored.ok else { return .failure }
        guard let made = await PlanRunner.plan(.apply, manifests: manifests, state: stored.state, refresh: refresh, targets: targets, context) else {
            return .failure
        }
        // Encoded once, and only when it is printed or saved: with thousands of resources the JSON is the larger part
        // of a plan without refresh.
        let encoded = json || out != nil ? made.document.json : nil
        if json, let encoded {
            context.stdout.write(encoded.serialized() + "\n")
        } else {
            context.stdout.write(PlanView.render(made.document, explain: explain, color: context.usesColor))
        }
        let consequence = out.map { "\($0) was not saved" } ?? "apply would refuse it"
        guard PlanRunner.enforce(made.document.policy, consequence: consequence, context) else { return .failure }
        if let out, let encoded {
            guard PlanRunner.save(encoded, to: out, context) else { return .failure }
            if !json { context.stdout.write("\nSaved the plan to \(out). Apply exactly this with: mcloud apply \(out)\n") }
        }
        return detailedExitCode && made.document.deployment.hasChanges ? .changes : .success
    }
}
