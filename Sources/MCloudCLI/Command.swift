/// One `mcloud` subcommand: a declaration, a constructor from parsed arguments, and a run.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments) throws(UsageError)
    func run(_ context: CommandContext) async -> ExitCode
}
