import Foundation
import MCloudViews
import MCloudCore

/// `mcloud show PLANFILE`: a saved plan, as people or pipelines read it.
struct ShowCommand: Command {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Show a plan saved by 'mcloud plan --out'.",
        options: [CommandSpec.Option(names: ["--json"], valueName: nil, help: "Print the plan as JSON (docs/cli.md's format).")],
        positionals: [CommandSpec.Positional(name: "PLANFILE", help: "The saved plan.")]
    )

    var file: String
    var json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = arguments.positionals.first ?? ""
        json = arguments.flag("--json")
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let document = try PlanRunner.read(file)
        context.stdout.write(json ? document.json.serialized() + "\n" : PlanView.render(document, explain: false, color: context.usesColor))
        return .success
    }
}
