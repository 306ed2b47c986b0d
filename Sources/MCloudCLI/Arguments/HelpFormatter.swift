/// Turns a `CommandSpec` into `--help` text and one-line usage.
enum HelpFormatter {
    static func usage(_ spec: CommandSpec) -> String {
        var parts = ["mcloud", spec.name]
        for option in spec.options {
            let spelling = option.names.first ?? ""
            var part = option.valueName.map { "\(spelling) \($0)" } ?? spelling
            if !option.isRequired { part = "[\(part)]" }
            if option.repeatable { part += "..." }
            parts.append(part)
        }
        for positional in spec.positionals {
            let name = positional.name + (positional.isRepeatable ? "..." : "")
            parts.append(positional.isOptional ? "[\(name)]" : name)
        }
        return parts.joined(separator: " ")
    }

    static func help(_ spec: CommandSpec) -> String {
        var text = "USAGE: \(usage(spec))\n\n\(spec.abstract)\n"
        if let discussion = spec.discussion { text += "\n\(discussion)\n" }
        if !spec.positionals.isEmpty {
            text += "\nARGUMENTS:\n"
            text += table(spec.positionals.map { ($0.name, $0.help) })
        }
        text += "\nOPTIONS:\n"
        text += table(spec.allOptions.map { option in
            let names = option.names.joined(separator: ", ")
            return (option.valueName.map { "\(names) \($0)" } ?? names, option.help)
        })
        return text
    }

    static func table(_ rows: [(String, String)]) -> String {
        let width = min(28, (rows.map(\.0.count).max() ?? 0) + 2)
        return rows.map { left, right in
            let label = "  " + left
            if label.count + 2 > width + 2 {
                return label + "\n" + String(repeating: " ", count: width + 2) + right + "\n"
            }
            return label + String(repeating: " ", count: width + 2 - label.count) + right + "\n"
        }.joined()
    }
}
