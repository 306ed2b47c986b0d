public import MCloudCore

/// How a scalar was written. Kept so that `"15"` stays a string and a plain `yes` is never a boolean by accident.
public enum ScalarStyle: String, Sendable, Hashable {
    case plain
    case singleQuoted
    case doubleQuoted
    case literal
    case folded

    /// Quoted and block scalars are always strings; only plain scalars are resolved to other types.
    public var isPlain: Bool { self == .plain }
}

public struct YAMLScalar: Sendable, Hashable {
    public var value: String
    public var style: ScalarStyle
    /// The explicit tag, expanded (`tag:yaml.org,2002:str` for `!!str`), when the document gave one.
    public var tag: String?

    public init(_ value: String, style: ScalarStyle = .plain, tag: String? = nil) {
        self.value = value
        self.style = style
        self.tag = tag
    }
}

public struct YAMLPair: Sendable, Hashable {
    public var key: YAMLNode
    public var value: YAMLNode

    public init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}

/// A YAML node that knows where it was written. Mappings keep their keys in document order.
public struct YAMLNode: Sendable, Hashable {
    public enum Content: Sendable, Hashable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([YAMLPair])
    }

    public var content: Content
    public var location: SourceLocation

    public init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
    }

    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = content { return scalar }
        return nil
    }

    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    public var mapping: [YAMLPair]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// The value of `key` in a mapping whose keys are scalars.
    public subscript(key: String) -> YAMLNode? {
        mapping?.first { $0.key.scalar?.value == key }?.value
    }

    /// What kind of node this is, in the words error messages use.
    public var kindDescription: String {
        switch content {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let scalar): return scalar.resolved.kindDescription
        }
    }
}

// Builders for nodes that are written rather than read, such as rendered Kubernetes objects.
extension YAMLNode {
    static let generated = SourceLocation(file: "<generated>", line: 0, column: 0)

    /// A string; the emitter quotes it where a reader could take it for another type.
    public static func string(_ value: String) -> YAMLNode {
        YAMLNode(.scalar(YAMLScalar(value, style: .doubleQuoted)), at: generated)
    }

    public static func int(_ value: Int) -> YAMLNode {
        YAMLNode(.scalar(YAMLScalar(String(value))), at: generated)
    }

    public static func bool(_ value: Bool) -> YAMLNode {
        YAMLNode(.scalar(YAMLScalar(value ? "true" : "false")), at: generated)
    }

    public static func number(_ value: Double) -> YAMLNode {
        YAMLNode(.scalar(YAMLScalar(YAMLScalar.format(value))), at: generated)
    }

    public static var null: YAMLNode {
        YAMLNode(.scalar(YAMLScalar("null")), at: generated)
    }

    public static func list(_ items: [YAMLNode]) -> YAMLNode {
        YAMLNode(.sequence(items), at: generated)
    }

    /// A mapping with string keys, in the order given.
    public static func map(_ pairs: KeyValuePairs<String, YAMLNode>) -> YAMLNode {
        map(pairs.map { ($0.key, $0.value) })
    }

    public static func map(_ pairs: [(String, YAMLNode)]) -> YAMLNode {
        YAMLNode(.mapping(pairs.map { YAMLPair(key: .string($0.0), value: $0.1) }), at: generated)
    }
}
