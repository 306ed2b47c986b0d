/// A JSON document with object keys in the order they were added, written the same way every time.
public enum JSONValue: Hashable, Sendable {
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
        case (.object(let a), .object(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
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
        String(decoding: serializedBytes(pretty: pretty), as: UTF8.self)
    }

    /// The UTF-8 of `serialized(pretty:)`, written straight into one buffer: what files and request bodies take.
    public func serializedBytes(pretty: Bool = true) -> [UInt8] {
        var output: [UInt8] = []
        write(into: &output, indent: pretty ? 0 : nil)
        return output
    }

    /// Appends the document to `output`, as `serializedBytes` writes it.
    public func write(into output: inout [UInt8], pretty: Bool = true) {
        write(into: &output, indent: pretty ? 0 : nil)
    }

    private func write(into output: inout [UInt8], indent: Int?) {
        switch self {
        case .null: output.append(contentsOf: Self.nullBytes)
        case .bool(let value): output.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
        case .int(let value): Self.writeInteger(value, into: &output)
        case .number(let value):
            if !value.isFinite {
                output.append(contentsOf: Self.nullBytes)
            } else if value == value.rounded() && abs(value) < 1e15 {
                Self.writeInteger(Int(value), into: &output)
            } else {
                output.append(contentsOf: "\(value)".utf8)
            }
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let items) where items.count >= Self.partedCount:
            Self.writeInParts(items, into: &output, indent: indent)
        case .array(let items):
            Self.writeContainer(items, open: UInt8(ascii: "["), close: UInt8(ascii: "]"), into: &output, indent: indent) { item, output, inner in
                item.write(into: &output, indent: inner)
            }
        case .object(let pairs):
            Self.writeContainer(pairs, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), into: &output, indent: indent) { pair, output, inner in
                Self.writeString(pair.0, into: &output)
                output.append(UInt8(ascii: ":"))
                if inner != nil { output.append(UInt8(ascii: " ")) }
                pair.1.write(into: &output, indent: inner)
            }
        }
    }

    /// An array's or object's brackets, commas and line breaks around its elements; `[]` and `{}` when empty.
    private static func writeContainer<Element>(
        _ elements: [Element], open: UInt8, close: UInt8, into output: inout [UInt8], indent: Int?,
        _ writeElement: (Element, inout [UInt8], Int?) -> Void
    ) {
        output.append(open)
        guard !elements.isEmpty else {
            output.append(close)
            return
        }
        let inner = indent.map { $0 + 1 }
        for (index, element) in elements.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            newline(&output, inner)
            writeElement(element, &output, inner)
        }
        newline(&output, indent)
        output.append(close)
    }

    /// From this many items on an array is written on every core: a state's 10,000 resources, a plan's changes.
    static let partedCount = 1_024

    /// A large array as `writeContainer` writes it, its items written in runs on every core, each run into a buffer
    /// of its own with the comma and line break before each item, and the runs appended in order: the same bytes.
    private static func writeInParts(_ items: [JSONValue], into output: inout [UInt8], indent: Int?) {
        let inner = indent.map { $0 + 1 }
        let runs = Parallel.map(items.count) { range in
            var run: [UInt8] = []
            for index in range {
                if index > 0 { run.append(UInt8(ascii: ",")) }
                newline(&run, inner)
                items[index].write(into: &run, indent: inner)
            }
            return [run]
        }
        output.reserveCapacity(output.count + runs.reduce(2) { $0 + $1.count } + 2 * (indent ?? 0) + 2)
        output.append(UInt8(ascii: "["))
        for run in runs { output.append(contentsOf: run) }
        newline(&output, indent)
        output.append(UInt8(ascii: "]"))
    }

    private static let nullBytes = Array("null".utf8), trueBytes = Array("true".utf8), falseBytes = Array("false".utf8)

    private static func newline(_ output: inout [UInt8], _ indent: Int?) {
        guard let indent else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    /// The decimal digits, written in reverse and turned around in place: no `String` per number.
    private static func writeInteger(_ value: Int, into output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        let start = output.count
        var rest = value.magnitude
        repeat {
            output.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        output[start...].reverse()
    }

    private static func writeString(_ value: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings need no escape: append their bytes whole rather than one by one.
        let utf8 = value.utf8
        guard needsEscape(utf8.span) else {
            output.append(contentsOf: utf8)
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output.append(UInt8(ascii: "\\"))
                output.append(byte)
            case UInt8(ascii: "\n"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case ..<0x20:
                // \u00XX, lower-case hex.
                output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Whether any byte must be escaped, read through a span rather than the UTF-8 view's iterator: through the
    /// iterator the check was the largest part of writing a large plan.
    private static func needsEscape(_ bytes: Span<UInt8>) -> Bool {
        for index in bytes.indices {
            let byte = bytes[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
        }
        return false
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
