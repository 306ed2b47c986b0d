/// `--timeout SECONDS`: how long drill and failover wait for a restoring server's report.
enum RestoreTimeout {
    static func option(waitingFor what: String) -> CommandSpec.Option {
        CommandSpec.Option(names: ["--timeout"], valueName: "SECONDS", help: "Give up waiting for \(what) after SECONDS (default: 1800).")
    }

    static func seconds(_ arguments: ParsedArguments) throws(UsageError) -> Int {
        let text = arguments.value("--timeout") ?? "1800"
        guard let seconds = Int(text), (1...86400).contains(seconds) else {
            throw UsageError(message: "--timeout must be a whole number of seconds from 1 to 86400, not \"\(text)\"")
        }
        return seconds
    }
}
