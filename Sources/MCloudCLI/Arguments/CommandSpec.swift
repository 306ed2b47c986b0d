/// A command's interface, declared once: parsing, `--help` and usage errors are all generated from it.
struct CommandSpec: Sendable {
    struct Option: Sendable {
        /// Every spelling, such as `["-f", "--file"]`; the last is the canonical name used to read the value.
        var names: [String]
        /// The placeholder of the option's value; nil for a flag.
        var valueName: String?
        var help: String
        var repeatable = false
        /// Usage shows it without brackets, and the parser refuses a call without it.
        var isRequired = false

        var canonicalName: String { names.last ?? "" }
        var takesValue: Bool { valueName != nil }
    }

    struct Positional: Sendable {
        var name: String
        var help: String
        var isOptional = false
        /// The last positional may take several values (`failover CLOUD...`).
        var isRepeatable = false
    }

    var name: String
    var abstract: String
    var discussion: String?
    var options: [Option] = []
    var positionals: [Positional] = []

    static let helpOption = Option(names: ["-h", "--help"], valueName: nil, help: "Show this help.")

    var allOptions: [Option] { options + [Self.helpOption] }
}

/// What the user typed, sorted by option.
struct ParsedArguments: Sendable {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func value(_ option: String) -> String? { values[option]?.last }
    func all(_ option: String) -> [String] { values[option] ?? [] }
    func flag(_ option: String) -> Bool { flags.contains(option) }
}

/// A mistake in how the command was called: printed with the usage, exit code 1.
struct UsageError: Error, Sendable {
    var message: String
}
