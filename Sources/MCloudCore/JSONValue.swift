/// A JSON document with object keys in the order they were added, written the same way every time.
public indirect enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(serialized(pretty: false))
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    public var objectPairs: [(String, JSONValue)] {
        if case .object(let pairs) = self { return pairs }
        return []
    }

    public var arrayItems: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var doubleValue: Double? {
        switch self {
        case .number(let value): return value
        case .int(let value): return Double(value)
        default: return nil
        }
    }

    public var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// A money amount or other measure, rounded to `places` decimals so float noise never reaches the output.
    public static func rounded(_ value: Double, places: Int = 6) -> JSONValue {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return .number((value * scale).rounded() / scale)
    }

    public func serialized(pretty: Bool = true) -> String {
        var output = ""
        write(into: &output, indent: pretty ? 0 : nil)
        return output
    }

    private func write(into output: inout String, indent: Int?) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .number(let value):
            if value.isFinite {
                output += value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
            } else {
                output += "null"
            }
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let items):
            guard !items.isEmpty else { output += "[]"; return }
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                Self.newline(&output, indent.map { $0 + 1 })
                item.write(into: &output, indent: indent.map { $0 + 1 })
            }
            Self.newline(&output, indent)
            output += "]"
        case .object(let pairs):
            guard !pairs.isEmpty else { output += "{}"; return }
            output += "{"
            for (index, pair) in pairs.enumerated() {
                if index > 0 { output += "," }
                Self.newline(&output, indent.map { $0 + 1 })
                Self.writeString(pair.0, into: &output)
                output += indent == nil ? ":" : ": "
                pair.1.write(into: &output, indent: indent.map { $0 + 1 })
            }
            Self.newline(&output, indent)
            output += "}"
        }
    }

    private static func newline(_ output: inout String, _ indent: Int?) {
        guard let indent else { return }
        output += "\n" + String(repeating: "  ", count: indent)
    }

    private static func writeString(_ value: String, into output: inout String) {
        output += "\""
        // Most strings need no escape: append them whole rather than scalar by scalar.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            output += value
            output += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
