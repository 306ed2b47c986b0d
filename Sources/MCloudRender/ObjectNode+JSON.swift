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
}
