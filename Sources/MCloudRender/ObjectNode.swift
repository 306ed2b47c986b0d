/// A rendered object as plain data: a Kubernetes object or an infrastructure resource. Mappings keep the order
/// they were built in.
///
/// Rendering builds these rather than `YAMLNode`s: they carry no source position, so building and writing
/// 100,000 objects a second stays within reach (see `BlockYAMLWriter`).
public enum ObjectNode: Sendable {
    case string(String)
    case int(Int)
    case number(Double)
    case bool(Bool)
    case list([ObjectNode])
    case map([(String, ObjectNode)])
    /// A mapping written once and pasted wherever it recurs, such as a cell's labels, which each of its objects
    /// carries two or three times.
    case shared(SharedMapping)

    /// The value of `key` in a mapping.
    public subscript(key: String) -> ObjectNode? {
        fields.first { $0.0 == key }?.1
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    public var items: [ObjectNode] {
        if case .list(let items) = self { return items }
        return []
    }

    public var fields: [(String, ObjectNode)] {
        switch self {
        case .map(let fields): return fields
        case .shared(let shared): return shared.fields
        default: return []
        }
    }

    /// A mapping of strings, such as labels, with its keys sorted so the output never depends on insertion order.
    static func sortedStrings(_ pairs: [(String, String)]) -> ObjectNode {
        .map(pairs.sorted { $0.0 < $1.0 }.map { ($0.0, .string($0.1)) })
    }
}

// Literals let the builders read like the YAML they produce.
extension ObjectNode: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: ObjectNode...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, ObjectNode)...) {
        self = .map(elements)
    }
}

/// A mapping with its YAML written once, at indent 0, for `BlockYAMLWriter` to paste at any indent.
public final class SharedMapping: Sendable {
    public let fields: [(String, ObjectNode)]
    let yaml: [UInt8]

    init(_ fields: [(String, ObjectNode)]) {
        self.fields = fields
        yaml = Array(BlockYAMLWriter.document(.map(fields)).utf8)
    }
}
