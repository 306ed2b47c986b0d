import MCloudCore
import MCloudYAML

/// Reads typed values out of YAML nodes, collecting a diagnostic for every problem instead of stopping at the first.
/// Every message starts with the key path (`spec.ports[0].port`) so the user knows which value is meant.
final class Decoder {
    private(set) var diagnostics: [Diagnostic] = []
    /// Every document with a valid `kind`, decoded or not: "no Application" is said only when there is none, and a
    /// reference to a document that failed to decode is not reported again as dangling.
    var documentsSeen: [DocumentSeen] = []
    /// Currencies whose exchange rate was written but invalid; they have their own error.
    var rejectedRates: Set<String> = []
    /// Each decoded document's nodes, for checks that run after decoding (see `SourceMap`).
    var sourceMap = SourceMap()

    func error(_ location: SourceLocation, _ message: String) {
        diagnostics.append(.error(location, message))
    }

    func warning(_ location: SourceLocation, _ message: String) {
        diagnostics.append(.warning(location, message))
    }

    // MARK: Collections

    /// A mapping whose keys must come from `keys`; `required` keys missing are reported at the mapping.
    func mapping(_ node: YAMLNode, _ path: String, keys: [String], required: [String] = []) -> Fields? {
        guard let pairs = node.mapping else {
            error(node.location, "\(path) must be a mapping, found \(node.kindDescription)")
            return nil
        }
        var fields = Fields(node: node, path: path)
        for pair in pairs {
            guard case .string(let key) = pair.key.scalar?.resolved else {
                error(pair.key.location, "\(path): keys must be strings, found \(pair.key.kindDescription)")
                continue
            }
            guard keys.contains(key) else {
                error(pair.key.location, "\(path): unknown key \"\(key)\"" + Suggestion.didYouMean(key, in: keys))
                continue
            }
            fields.values.append((key, pair.value))
        }
        for key in required where fields[key] == nil {
            error(node.location, "\(path): missing required key \"\(key)\"")
        }
        return fields
    }

    /// A list; a null value (`key:` with nothing after it) is reported as missing.
    func list(_ node: YAMLNode, _ path: String) -> [(node: YAMLNode, path: String)]? {
        guard let items = node.sequence else {
            error(node.location, "\(path) must be a list, found \(node.kindDescription)")
            return nil
        }
        return items.enumerated().map { ($0.element, "\(path)[\($0.offset)]") }
    }

    /// A mapping from string keys to values, such as `latencyMs` or `env`, in the order written.
    func dictionary(_ node: YAMLNode, _ path: String) -> [(key: String, keyNode: YAMLNode, value: YAMLNode, path: String)]? {
        guard let pairs = node.mapping else {
            error(node.location, "\(path) must be a mapping, found \(node.kindDescription)")
            return nil
        }
        return pairs.compactMap { pair in
            guard case .string(let key) = pair.key.scalar?.resolved else {
                error(pair.key.location, "\(path): keys must be strings, found \(pair.key.kindDescription)")
                return nil
            }
            return (key, pair.key, pair.value, "\(path).\(key)")
        }
    }

    // MARK: Scalars

    func string(_ node: YAMLNode, _ path: String) -> String? {
        guard let scalar = node.scalar else {
            error(node.location, "\(path) must be a string, found \(node.kindDescription)")
            return nil
        }
        switch scalar.resolved {
        case .string(let value):
            return value
        case .null:
            error(node.location, "\(path) has no value; expected a string")
        case .bool, .int, .float:
            error(node.location, "\(path) must be a string, found \(scalar.resolved.kindDescription) (\(scalar.value)); quote it: \"\(scalar.value)\"")
        }
        return nil
    }

    func nonEmptyString(_ node: YAMLNode, _ path: String) -> String? {
        guard let value = string(node, path) else { return nil }
        guard !value.trimmingSpaces.isEmpty else {
            error(node.location, "\(path) must not be empty")
            return nil
        }
        return value
    }

    /// A DNS label: what Kubernetes, OpenStack and DNS all accept as a name.
    func name(_ node: YAMLNode, _ path: String) -> String? {
        guard let value = string(node, path) else { return nil }
        guard let problem = Names.dnsLabelProblem(value) else { return value }
        error(node.location, "\(path): \"\(value)\" is not a valid name: \(problem)")
        return nil
    }

    func bool(_ node: YAMLNode, _ path: String) -> Bool? {
        guard let scalar = node.scalar else {
            error(node.location, "\(path) must be true or false, found \(node.kindDescription)")
            return nil
        }
        if case .bool(let value) = scalar.resolved { return value }
        let yaml11 = ["yes": "true", "on": "true", "y": "true", "no": "false", "off": "false", "n": "false"]
        if scalar.style.isPlain, let meant = yaml11[scalar.value.lowercased()] {
            error(node.location, "\(path) must be true or false; \"\(scalar.value)\" is a string in YAML 1.2, write \(meant)")
        } else {
            error(node.location, "\(path) must be true or false, found \(scalar.resolved.kindDescription) (\(scalar.value))")
        }
        return nil
    }

    func int(_ node: YAMLNode, _ path: String, min: Int = 0, max: Int = Int.max) -> Int? {
        guard let scalar = node.scalar else {
            error(node.location, "\(path) must be an integer, found \(node.kindDescription)")
            return nil
        }
        switch scalar.resolved {
        case .int(let value):
            guard value >= min else {
                error(node.location, min == 0 ? "\(path) must not be negative, found \(value)" : "\(path) must be at least \(min), found \(value)")
                return nil
            }
            guard value <= max else {
                error(node.location, "\(path) must be at most \(max), found \(value)")
                return nil
            }
            return value
        case .float(let value) where value == value.rounded() && value > Double(max):
            error(node.location, "\(path) must be at most \(max), found \(scalar.value)")
        case .float:
            error(node.location, "\(path) must be a whole number, found \(scalar.value)")
        case .string where Int(scalar.value) != nil:
            error(node.location, "\(path) must be an integer, found a string (\"\(scalar.value)\"); \(unquoteAdvice(scalar))")
        case .null:
            error(node.location, "\(path) has no value; expected an integer")
        default:
            error(node.location, "\(path) must be an integer, found \(scalar.resolved.kindDescription) (\(scalar.value))")
        }
        return nil
    }

    /// A number written as a string is quoted, or tagged `!!str`; say which to undo.
    private func unquoteAdvice(_ scalar: YAMLScalar) -> String {
        scalar.style.isPlain ? "remove the !!str tag" : "remove the quotes"
    }

    /// A finite number, zero or more; with `positive`, more than zero.
    func number(_ node: YAMLNode, _ path: String, positive: Bool = false) -> Double? {
        guard let scalar = node.scalar else {
            error(node.location, "\(path) must be a number, found \(node.kindDescription)")
            return nil
        }
        let value: Double
        switch scalar.resolved {
        case .int(let int): value = Double(int)
        case .float(let double) where double.isFinite: value = double
        case .float:
            error(node.location, "\(path) must be a finite number, found \(scalar.value)")
            return nil
        case .string where Double(scalar.value) != nil:
            error(node.location, "\(path) must be a number, found a string (\"\(scalar.value)\"); \(unquoteAdvice(scalar))")
            return nil
        case .null:
            error(node.location, "\(path) has no value; expected a number")
            return nil
        default:
            error(node.location, "\(path) must be a number, found \(scalar.resolved.kindDescription) (\(scalar.value))")
            return nil
        }
        if value < 0 {
            error(node.location, "\(path) must not be negative, found \(scalar.value)")
            return nil
        }
        if positive, value == 0 {
            error(node.location, "\(path) must be more than 0")
            return nil
        }
        return value
    }

    /// A share between 0 (exclusive) and 1 (inclusive), kept as an exact decimal fraction.
    func share(_ node: YAMLNode, _ path: String) -> Ratio? {
        guard let value = number(node, path, positive: true), let scalar = node.scalar else { return nil }
        guard value <= 1 else {
            error(node.location, "\(path) must be at most 1 (a share of the replicas), found \(scalar.value)")
            return nil
        }
        guard let ratio = Ratio(decimal: scalar.value) else {
            error(node.location, "\(path) must be a decimal fraction such as 0.67, found \(scalar.value)")
            return nil
        }
        return ratio
    }

    /// One of a fixed set of words; a near miss gets a suggestion.
    func choice<Choice: RawRepresentable & CaseIterable>(_ node: YAMLNode, _ path: String, as type: Choice.Type) -> Choice?
    where Choice.RawValue == String {
        guard let value = string(node, path) else { return nil }
        if let choice = Choice(rawValue: value) { return choice }
        let options = Choice.allCases.map(\.rawValue)
        let hint = Suggestion.closest(to: value, in: options).map { "; did you mean \"\($0)\"?" }
            ?? " (one of: \(options.joined(separator: ", ")))"
        error(node.location, "\(path): \"\(value)\" is not allowed\(hint)")
        return nil
    }

    func cpu(_ node: YAMLNode, _ path: String) -> CPUQuantity? {
        guard let text = quantityText(node, path) else { return nil }
        switch CPUQuantity.parse(text) {
        case .success(let quantity): return quantity
        case .failure(let problem):
            error(node.location, "\(path): \(problem)")
            return nil
        }
    }

    func memory(_ node: YAMLNode, _ path: String) -> MemoryQuantity? {
        guard let text = quantityText(node, path) else { return nil }
        switch MemoryQuantity.parse(text) {
        case .success(let quantity): return quantity
        case .failure(let problem):
            error(node.location, "\(path): \(problem)")
            return nil
        }
    }

    /// Quantities may be written as numbers (`2`) or strings (`"500m"`), as Kubernetes allows.
    private func quantityText(_ node: YAMLNode, _ path: String) -> String? {
        guard let scalar = node.scalar else {
            error(node.location, "\(path) must be a quantity such as 500m or 512Mi, found \(node.kindDescription)")
            return nil
        }
        switch scalar.resolved {
        case .string(let value):
            return value.trimmingSpaces
        case .int, .float:
            return scalar.value
        case .null, .bool:
            error(node.location, "\(path) must be a quantity such as 500m or 512Mi, found \(scalar.resolved.kindDescription)")
            return nil
        }
    }

    // MARK: Lists of scalars

    func strings(_ node: YAMLNode, _ path: String, nonEmpty: Bool = false, unique: Bool = true) -> [String]? {
        list(of: node, path, nonEmpty: nonEmpty, unique: unique) { self.nonEmptyString($0, $1) }
    }

    func names(_ node: YAMLNode, _ path: String, nonEmpty: Bool = false) -> [String]? {
        list(of: node, path, nonEmpty: nonEmpty, unique: true) { self.name($0, $1) }
    }

    /// Jurisdiction tags such as RU, EU, DE: upper case, so `ru` never silently fails to match `RU`.
    func tags(_ node: YAMLNode, _ path: String, nonEmpty: Bool) -> [String]? {
        list(of: node, path, nonEmpty: nonEmpty, unique: true) { self.tag($0, $1) }
    }

    func tag(_ node: YAMLNode, _ path: String) -> String? {
        guard let value = string(node, path) else { return nil }
        guard Names.isTag(value) else {
            let hint = Names.isTag(value.uppercased()) ? "; did you mean \"\(value.uppercased())\"?" : ""
            error(node.location, "\(path): \"\(value)\" is not a jurisdiction tag: use upper-case letters and digits, such as RU or EU\(hint)")
            return nil
        }
        return value
    }

    func currency(_ node: YAMLNode, _ path: String) -> String? {
        guard let value = string(node, path) else { return nil }
        guard Names.isCurrencyCode(value) else {
            error(node.location, "\(path): \"\(value)\" is not a currency code: use three upper-case letters (ISO 4217), such as USD, EUR or RUB")
            return nil
        }
        return value
    }

    private func list<T: Hashable>(
        of node: YAMLNode, _ path: String, nonEmpty: Bool, unique: Bool, _ element: (YAMLNode, String) -> T?
    ) -> [T]? {
        guard let items = list(node, path) else { return nil }
        if nonEmpty, items.isEmpty {
            error(node.location, "\(path) must not be empty")
            return nil
        }
        var result: [T] = []
        var seen: [T: SourceLocation] = [:]
        for item in items {
            guard let value = element(item.node, item.path) else { continue }
            if unique, let first = seen[value] {
                error(item.node.location, "\(item.path) repeats \(item.node.scalar?.value ?? "a value") (first listed at \(first))")
                continue
            }
            seen[value] = item.node.location
            result.append(value)
        }
        return result
    }
}

/// The known keys of one mapping and their values.
struct Fields {
    let node: YAMLNode
    let path: String
    /// A handful of keys at most, so a list beats a dictionary; duplicates were reported by the reader, the first wins.
    var values: [(key: String, node: YAMLNode)] = []

    subscript(key: String) -> YAMLNode? { values.first { $0.key == key }?.node }

    func path(_ key: String) -> String { "\(path).\(key)" }
}

extension ResolvedScalar {
    var isBool: Bool {
        if case .bool = self { return true }
        return false
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return String(text)
    }
}
