/// A health in Argo CD's words, worst last: a cell takes the worst of its clouds and the application the worst of its
/// cells. `Unknown` is the worst, as in Argo CD's gitops-engine, because a cloud that cannot be read may be down.
public enum StatusHealth: String, Sendable, Hashable, CaseIterable, Comparable {
    case healthy = "Healthy"
    case progressing = "Progressing"
    case missing = "Missing"
    case degraded = "Degraded"
    case unknown = "Unknown"

    public static func < (lhs: StatusHealth, rhs: StatusHealth) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}

/// A health and the first reason it is not `Healthy`.
public struct StatusVerdict: Sendable, Hashable {
    public var health: StatusHealth
    /// Nil when healthy.
    public var reason: String?

    public init(_ health: StatusHealth, _ reason: String? = nil) {
        self.health = health
        self.reason = health == .healthy ? nil : reason
    }

    public static let healthy = StatusVerdict(.healthy)

    /// The worst of `verdicts`, with the reason of the first that is that bad; healthy when there are none.
    public static func worst(_ verdicts: [StatusVerdict]) -> StatusVerdict {
        guard let worst = verdicts.map(\.health).max() else { return .healthy }
        return verdicts.first { $0.health == worst } ?? .healthy
    }
}
