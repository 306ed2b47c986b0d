/// One `mcloud` subcommand: a declaration, a constructor from parsed arguments, and a run that returns the exit
/// code or throws why it stopped (which `MCloud.main` prints).
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments) throws(UsageError)
    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode
}
