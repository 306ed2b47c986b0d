/// A workload as the planner places it: `NAME@AUDIENCE` for perAudience workloads, `NAME` for global ones.
public struct Cell: Hashable, Sendable, Comparable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        case service = "Service"
        case database = "Database"
    }

    public var workload: String
    public var kind: Kind
    /// The audience a perAudience cell serves; nil for a global cell, which serves them all.
    public var audience: String?

    public init(workload: String, kind: Kind, audience: String?) {
        self.workload = workload
        self.kind = kind
        self.audience = audience
    }

    public var name: String { audience.map { "\(workload)@\($0)" } ?? workload }
    public var description: String { name }

    public static func < (lhs: Cell, rhs: Cell) -> Bool { lhs.name < rhs.name }
}
