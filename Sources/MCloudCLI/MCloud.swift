import MCloudCore

/// The `mcloud` tool: picks the command, parses its arguments, runs it, and returns the exit code.
public enum MCloud {
    static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        ValidateCommand.self, PlanCommand.self, ApplyCommand.self, DestroyCommand.self, ShowCommand.self, RenderCommand.self,
        ExplainCommand.self, ReportCommand.self, GraphCommand.self, StateCommand.self, StatusCommand.self, BackupsCommand.self, FailoverCommand.self, SwitchoverCommand.self, DrillCommand.self,
        CatalogCommand.self, VersionCommand.self,
    ]

    static let abstract = "mcloud places an application's services and databases across clouds, under data-residency law, at minimum cost, and deploys them."

    public static func main(_ arguments: [String], context: CommandContext) async -> ExitCode {
        guard let first = arguments.first else {
            context.stderr.write(overview)
            return .failure
        }
        switch first {
        case "-h", "--help", "help":
            if first == "help", arguments.count > 1, let command = command(named: arguments[1]) {
                context.stdout.write(HelpFormatter.help(command.spec))
            } else {
                context.stdout.write(overview)
            }
            return .success
        case "--version":
            return await run(VersionCommand(), context)
        default:
            break
        }
        guard let command = command(named: first) else {
            let hint = Suggestion.didYouMean(first, in: commands.map { $0.spec.name }).replacingQuotes
            context.stderr.write("error: unknown command '\(first)'\(hint)\n\n\(overview)")
            return .failure
        }
        let made: any Command
        do throws(UsageError) {
            let parsed = try ArgumentParser.parse(Array(arguments.dropFirst()), for: command.spec)
            if parsed.flag("--help") {
                context.stdout.write(HelpFormatter.help(command.spec))
                return .success
            }
            made = try command.init(parsed)
        } catch {
            context.stderr.write("error: \(error.message)\nUsage: \(HelpFormatter.usage(command.spec))\nSee 'mcloud \(command.spec.name) --help'.\n")
            return .failure
        }
        return await run(made, context)
    }

    /// The command's exit code; when it fails, why, printed here and nowhere else.
    private static func run(_ command: any Command, _ context: CommandContext) async -> ExitCode {
        do throws(CommandFailure) {
            return try await command.run(context)
        } catch {
            context.stderr.write(error.text)
            return error.exitCode
        }
    }

    private static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == name }
    }

    static var overview: String {
        var text = "USAGE: mcloud COMMAND [OPTIONS]\n\n\(abstract)\n\nCOMMANDS:\n"
        text += HelpFormatter.table(commands.map { ($0.spec.name, $0.spec.abstract) })
        text += "\nRun 'mcloud COMMAND --help' for a command's options.\n"
        return text
    }
}
