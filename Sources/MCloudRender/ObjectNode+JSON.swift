public import MCloudCore

extension ObjectNode {
    /// The same data as JSON, mappings in their order: what the apply engine sends to a provider.
    public var json: JSONValue {
        switch self {
        case .string(let value): return .string(value)
        case .int(let value): return .int(value)
        case .number(let value): return .number(value)
        case .bool(let value): return .bool(value)
        case .list(let items): return .array(items.map(\.json))
        case .map, .shared: return .object(fields.map { ($0.0, $0.1.json) })
        }
    }

    /// JSON as a node: what the provider contract spells as JSON (a database server's typed fields) placed in a
    /// rendered object. JSON's null, which nothing rendered holds, becomes an empty string.
    public init(_ json: JSONValue) {
        switch json {
        case .string(let value): self = .string(value)
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .number(let value): self = .number(value)
        case .array(let items): self = .list(items.map(ObjectNode.init))
        case .object(let pairs): self = .map(pairs.map { ($0.0, ObjectNode($0.1)) })
        case .null: self = .string("")
        }
    }
}
