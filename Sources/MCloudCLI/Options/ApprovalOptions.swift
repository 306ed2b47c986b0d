/// `--auto-approve` and `--parallelism N`, shared by the commands that change clouds (apply, destroy, failover).
struct ApprovalOptions {
    static let autoApproveOption = CommandSpec.Option(names: ["--auto-approve"], valueName: nil, help: "Go ahead without asking for confirmation.")
    static let parallelismOption = CommandSpec.Option(names: ["--parallelism"], valueName: "N", help: "Change at most N resources at once (default: 10).")

    /// The two options in the command's own words: what is approved (`Apply`, `Destroy`, `Fail over`) and what is
    /// done at most N at once (`Change`, `Delete`).
    static func options(approving action: String, verb: String = "Change") -> [CommandSpec.Option] {
        var autoApprove = autoApproveOption
        autoApprove.help = "\(action) without asking for confirmation."
        var parallelism = parallelismOption
        parallelism.help = "\(verb) at most N resources at once (default: 10)."
        return [autoApprove, parallelism]
    }

    var autoApprove: Bool
    var parallelism: Int

    init(_ arguments: ParsedArguments) throws(UsageError) {
        autoApprove = arguments.flag(Self.autoApproveOption.canonicalName)
        guard let text = arguments.value(Self.parallelismOption.canonicalName) else {
            parallelism = 10
            return
        }
        guard let value = Int(text), (1...1000).contains(value) else {
            throw UsageError(message: "--parallelism must be a whole number from 1 to 1000, not \"\(text)\"")
        }
        parallelism = value
    }
}
