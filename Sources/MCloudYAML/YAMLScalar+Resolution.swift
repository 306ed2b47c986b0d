/// A scalar's value after the YAML 1.2 core schema has been applied to it.
public enum ResolvedScalar: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case float(Double)
    case string(String)

    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .float: return "a number"
        case .string: return "a string"
        }
    }
}

extension YAMLScalar {
    static let stringTag = "tag:yaml.org,2002:str"

    private static let plainStringStarts: Set<UInt8> = {
        let possible = Set("0123456789+-.~nNtTfF".utf8)
        return Set((0...255).map(UInt8.init).filter { !possible.contains($0) })
    }()

    /// Plain scalars resolve by the YAML 1.2 core schema: `yes`, `on` and `no` stay strings, unlike YAML 1.1.
    /// Quoted and block scalars, and anything tagged `!!str`, are strings.
    public var resolved: ResolvedScalar {
        guard style.isPlain, tag != Self.stringTag else { return .string(value) }
        // Most plain scalars are words; only these first characters can start a null, boolean or number.
        guard let first = value.utf8.first, !Self.plainStringStarts.contains(first) else {
            return value.isEmpty ? .null : .string(value)
        }
        switch value {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .float(.infinity)
        case "-.inf", "-.Inf", "-.INF": return .float(-.infinity)
        case ".nan", ".NaN", ".NAN": return .float(.nan)
        default: break
        }
        if let int = Self.parseInteger(value) { return .int(int) }
        if Self.isCoreFloat(value), let double = Double(value) { return .float(double) }
        return .string(value)
    }

    /// Decimal `[-+]?[0-9]+`, octal `0o[0-7]+` and hexadecimal `0x[0-9a-fA-F]+`, as in the core schema.
    static func parseInteger(_ text: String) -> Int? {
        if text.hasPrefix("0o") { return Int(text.dropFirst(2), radix: 8) }
        if text.hasPrefix("0x") { return Int(text.dropFirst(2), radix: 16) }
        var digits = Substring(text)
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text.hasPrefix("+") ? String(text.dropFirst()) : text)
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
    static func isCoreFloat(_ text: String) -> Bool {
        var chars = Substring(text)
        if chars.first == "-" || chars.first == "+" { chars = chars.dropFirst() }
        let mantissaEnd = chars.firstIndex { $0 == "e" || $0 == "E" } ?? chars.endIndex
        let mantissa = chars[..<mantissaEnd]
        let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let isDigits: (Substring) -> Bool = { $0.allSatisfy { $0.isASCII && $0.isNumber } }
        switch parts.count {
        case 1: guard !parts[0].isEmpty, isDigits(parts[0]) else { return false }
        case 2:
            guard isDigits(parts[0]), isDigits(parts[1]), !(parts[0].isEmpty && parts[1].isEmpty) else { return false }
        default: return false
        }
        guard mantissaEnd != chars.endIndex else { return true }
        var exponent = chars[chars.index(after: mantissaEnd)...]
        if exponent.first == "-" || exponent.first == "+" { exponent = exponent.dropFirst() }
        return !exponent.isEmpty && isDigits(exponent)
    }

    /// The shortest text that reads back as the same number: `2` rather than `2.0`.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return ".nan" }
        if value.isInfinite { return value > 0 ? ".inf" : "-.inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }
}
