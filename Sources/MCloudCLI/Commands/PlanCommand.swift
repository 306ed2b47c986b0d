import MCloudCore
import MCloudRender

/// `mcloud plan`: where every cell runs, what it costs, and why.
struct PlanCommand: Command {
    static let spec = CommandSpec(
        name: "plan",
        abstract: "Place every service and database across the clouds at minimum cost and show the result.",
        discussion: "Every hard rule holds: capability, residency, latency, spread, the DR leg and capacity. The plan reports its cost, a lower bound on any placement's cost, and for every cell the reasons each other cloud was not used. Exits 1 when the input is invalid or no placement meets every rule.",
        options: [
            ManifestOptions.file,
            ManifestOptions.providers,
            CommandSpec.Option(names: ["--json"], valueName: nil, help: "Print the plan as JSON (cli.md's format) on stdout."),
            CommandSpec.Option(names: ["--explain"], valueName: nil, help: "Also print every rejected cloud's reasons for every cell."),
        ]
    )

    var manifests: ManifestOptions
    var json: Bool
    var explain: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        manifests = ManifestOptions(arguments)
        json = arguments.flag("--json")
        explain = arguments.flag("--explain")
        if json, explain { throw UsageError(message: "--explain adds to the human view; --json already holds every reason") }
    }

    func run(_ context: CommandContext) -> ExitCode {
        guard let (_, plan) = PlacementLoader.plan(manifests, context) else { return .failure }
        let document = PlanDocument.json(plan)
        context.stdout.write(json ? document.serialized() + "\n" : PlanView.render(document, explain: explain))
        return .success
    }
}
