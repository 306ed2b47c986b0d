import MCloudCore

/// Parses arguments against a `CommandSpec`: `--name value`, `--name=value`, `-f value`, flags, and `--` to end options.
enum ArgumentParser {
    static func parse(_ arguments: [String], for spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let (name, inlineValue) = split(argument)
            guard let option = spec.allOptions.first(where: { $0.names.contains(name) }) else {
                let spellings = spec.allOptions.flatMap(\.names).filter { $0.hasPrefix("--") }
                throw UsageError(message: "unknown option '\(name)'" + Suggestion.didYouMean(name, in: spellings).replacingQuotes)
            }
            let key = option.canonicalName
            if option.takesValue {
                guard let value = inlineValue ?? remaining.popFirst() else {
                    throw UsageError(message: "option '\(name)' needs a value (\(option.valueName ?? "VALUE"))")
                }
                if !option.repeatable, parsed.values[key] != nil {
                    throw UsageError(message: "option '\(name)' may be given only once")
                }
                parsed.values[key, default: []].append(value)
            } else {
                if inlineValue != nil { throw UsageError(message: "option '\(name)' takes no value") }
                parsed.flags.insert(key)
            }
        }
        if parsed.flags.contains("--help") { return parsed }
        for option in spec.options where option.isRequired && parsed.values[option.canonicalName] == nil {
            throw UsageError(message: "missing option \(option.names.first ?? "")" + (option.valueName.map { " \($0)" } ?? ""))
        }
        let required = spec.positionals.filter { !$0.isOptional }.count
        if parsed.positionals.count < required {
            let missing = spec.positionals[parsed.positionals.count]
            throw UsageError(message: "missing argument \(missing.name)")
        }
        if parsed.positionals.count > spec.positionals.count, spec.positionals.last?.isRepeatable != true {
            let extra = parsed.positionals[spec.positionals.count]
            throw UsageError(message: "unexpected argument '\(extra)'")
        }
        return parsed
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}

extension String {
    /// Flags are quoted with single quotes in usage errors, as getopt does.
    var replacingQuotes: String { String(map { $0 == "\"" ? "'" : $0 }) }
}
