import MCloudCore

/// Writes an `ObjectNode` as block YAML in the layout of MCloudYAML's `YAMLEmitter`: two-space indent, sequences in
/// mappings not indented, empty collections as `{}` and `[]`, and a string plain exactly where `YAMLEmitter` writes
/// printable ASCII plain (no YAML 1.1 or 1.2 reader takes it for another type), double-quoted otherwise.
///
/// Why not `YAMLEmitter` itself: driving libyaml one event at a time costs about 200 µs per Deployment, twenty
/// times the budget of 100,000 objects a second. The tests hold the two to the same bytes on every bundled example.
/// Where they differ, on purpose: a string with a line break or non-ASCII text is always double-quoted here.
struct BlockYAMLWriter {
    /// Reused from one document to the next: a fresh buffer per document costs more than writing it.
    private var output: [UInt8] = []

    static func document(_ node: ObjectNode) -> String {
        var writer = BlockYAMLWriter()
        return writer.document(node)
    }

    mutating func document(_ node: ObjectNode) -> String {
        output.removeAll(keepingCapacity: true)
        switch node {
        case .map(let fields) where !fields.isEmpty: Self.mapping(fields, indent: 0, inline: false, into: &output)
        case .shared(let shared) where !shared.fields.isEmpty: output.append(contentsOf: shared.yaml)
        case .list(let items) where !items.isEmpty: Self.sequence(items, indent: 0, inline: false, into: &output)
        default:
            Self.scalarOrEmpty(node, into: &output)
            output.append(Self.newline)
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func mapping(_ fields: [(String, ObjectNode)], indent: Int, inline: Bool, into output: inout [UInt8]) {
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 || !inline { pad(indent, &output) }
            string(key, into: &output)
            output.append(colon)
            switch value {
            case .map(let nested) where !nested.isEmpty:
                output.append(newline)
                mapping(nested, indent: indent + 2, inline: false, into: &output)
            case .shared(let shared) where !shared.fields.isEmpty:
                output.append(newline)
                paste(shared.yaml, indent: indent + 2, into: &output)
            case .list(let items) where !items.isEmpty:
                // libyaml writes a sequence that is a mapping's value at the key's own indent.
                output.append(newline)
                sequence(items, indent: indent, inline: false, into: &output)
            default:
                output.append(space)
                scalarOrEmpty(value, into: &output)
                output.append(newline)
            }
        }
    }

    private static func sequence(_ items: [ObjectNode], indent: Int, inline: Bool, into output: inout [UInt8]) {
        for (index, item) in items.enumerated() {
            if index > 0 || !inline { pad(indent, &output) }
            output.append(dash)
            output.append(space)
            switch item {
            case .map(let fields) where !fields.isEmpty: mapping(fields, indent: indent + 2, inline: true, into: &output)
            case .shared(let shared) where !shared.fields.isEmpty: mapping(shared.fields, indent: indent + 2, inline: true, into: &output)
            case .list(let nested) where !nested.isEmpty: sequence(nested, indent: indent + 2, inline: true, into: &output)
            default:
                scalarOrEmpty(item, into: &output)
                output.append(newline)
            }
        }
    }

    private static func scalarOrEmpty(_ node: ObjectNode, into output: inout [UInt8]) {
        switch node {
        case .string(let value): string(value, into: &output)
        case .int(let value): output.append(contentsOf: String(value).utf8)
        case .number(let value): output.append(contentsOf: NumberText.format(value).utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .map, .shared: output.append(contentsOf: "{}".utf8)
        case .list: output.append(contentsOf: "[]".utf8)
        }
    }

    /// A mapping written at indent 0, every line indented by `indent`; a line break never occurs inside a scalar
    /// here, as strings with line breaks are written double-quoted with `\n`.
    private static func paste(_ yaml: [UInt8], indent: Int, into output: inout [UInt8]) {
        var lineStart = true
        for byte in yaml {
            if lineStart { pad(indent, &output) }
            output.append(byte)
            lineStart = byte == newline
        }
    }

    private static func string(_ value: String, into output: inout [UInt8]) {
        let written = value.utf8.withContiguousStorageIfAvailable { bytes in
            guard isSafePlain(bytes) else { return false }
            output.append(contentsOf: bytes)
            return true
        }
        switch written {
        case true?: return
        case false?: doubleQuoted(value, into: &output)
        case nil: string(String(decoding: Array(value.utf8), as: UTF8.self), into: &output)
        }
    }

    /// `YAMLEmitter.isSafePlain`, for printable ASCII; anything else is quoted. One pass, no allocation: it runs for
    /// every key and value written.
    private static func isSafePlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last, !cannotStartPlain(first), last != space, last != colon else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            guard byte >= 0x20, byte < 0x7F else { return false }
            if byte == space, previous == colon { return false }
            if byte == hash, previous == space { return false }
            previous = byte
        }
        guard bytes.count <= 5 else { return true }
        // Lower-cased and packed into one integer, to compare with the YAML 1.1 words in one step each.
        let packed = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1 >= 0x41 && $1 <= 0x5A ? $1 | 0x20 : $1) }
        return !yaml11Words.contains(packed)
    }

    /// The indicators `YAMLEmitter` will not start a plain scalar with, a space, and what starts a number.
    private static func cannotStartPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "]"),
            UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "#"), UInt8(ascii: "&"), UInt8(ascii: "*"), UInt8(ascii: "!"),
            UInt8(ascii: "|"), UInt8(ascii: ">"), UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "%"), UInt8(ascii: "@"),
            UInt8(ascii: "`"), UInt8(ascii: " "), UInt8(ascii: "."), UInt8(ascii: "+"), 0x30...0x39:
            return true
        default:
            return false
        }
    }

    /// libyaml's double-quoted style: its named escapes, `\x`, `\u` for what is not printable, UTF-8 for the rest.
    private static func doubleQuoted(_ value: String, into output: inout [UInt8]) {
        output.append(quote)
        for scalar in value.unicodeScalars {
            let code = scalar.value
            if let named = namedEscapes[code] {
                output.append(backslash)
                output.append(named)
            } else if code < 0x20 || (0x7F...0x9F).contains(code) || code == 0xFEFF || code == 0xFFFE || code == 0xFFFF {
                let hex = String(code, radix: 16, uppercase: true)
                let width = code <= 0xFF ? 2 : 4
                output.append(contentsOf: (code <= 0xFF ? "\\x" : "\\u").utf8)
                output.append(contentsOf: (String(repeating: "0", count: width - hex.count) + hex).utf8)
            } else {
                output.append(contentsOf: String(scalar).utf8)
            }
        }
        output.append(quote)
    }

    private static func pad(_ indent: Int, _ output: inout [UInt8]) {
        for _ in 0..<indent { output.append(space) }
    }

    private static let space = UInt8(ascii: " ")
    private static let newline = UInt8(ascii: "\n")
    private static let colon = UInt8(ascii: ":")
    private static let dash = UInt8(ascii: "-")
    private static let hash = UInt8(ascii: "#")
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    /// Words YAML 1.1 readers (kubectl's among them) take for booleans or null, packed as `isSafePlain` packs.
    private static let yaml11Words: [UInt64] = ["y", "yes", "n", "no", "on", "off", "true", "false", "null", "~", "=", "<<"].map {
        $0.utf8.reduce(0) { $0 << 8 | UInt64($1) }
    }
    private static let namedEscapes: [UInt32: UInt8] = [
        0x00: UInt8(ascii: "0"), 0x07: UInt8(ascii: "a"), 0x08: UInt8(ascii: "b"), 0x09: UInt8(ascii: "t"),
        0x0A: UInt8(ascii: "n"), 0x0B: UInt8(ascii: "v"), 0x0C: UInt8(ascii: "f"), 0x0D: UInt8(ascii: "r"),
        0x1B: UInt8(ascii: "e"), 0x22: UInt8(ascii: "\""), 0x5C: UInt8(ascii: "\\"), 0x85: UInt8(ascii: "N"),
        0x2028: UInt8(ascii: "L"), 0x2029: UInt8(ascii: "P"),
    ]
}
