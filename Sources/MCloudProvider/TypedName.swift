/// A name whose text is all it is, typed so that a provider, a kind and an address cannot be mixed up: written as
/// a string literal, compared and sorted by its text, and printed as it.
public protocol TypedName: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral
where RawValue == String, StringLiteralType == String {
    init(rawValue: String)
}

extension TypedName {
    public init(_ text: String) {
        self.init(rawValue: text)
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
