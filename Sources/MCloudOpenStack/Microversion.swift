import MCloudCore

/// A Nova microversion such as 2.52, compared numerically (2.9 < 2.37).
public struct Microversion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(_ major: Int, _ minor: Int) {
        self.major = major
        self.minor = minor
    }

    public init?(_ text: String) {
        let parts = text.split(separator: ".")
        guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]) else { return nil }
        self.init(major, minor)
    }

    public var description: String { "\(major).\(minor)" }

    public static func < (lhs: Microversion, rhs: Microversion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// The range a version document announces: Nova's `GET /v2.1` (`{"version": {...}}`) or `GET /`
    /// (`{"versions": [...]}`, the CURRENT one); nil when the API has no microversions.
    static func range(in document: JSONValue) -> ClosedRange<Microversion>? {
        let version = document["version"] ?? document["versions"]?.arrayItems.first { $0["status"]?.stringValue == "CURRENT" }
        guard let version, let minimum = version["min_version"]?.stringValue.flatMap(Microversion.init),
              let maximum = version["version"]?.stringValue.flatMap(Microversion.init), minimum <= maximum else { return nil }
        return minimum...maximum
    }
}
