/// Why a cloud cannot take (part of) a cell: one per failed filter.
public struct Reason: Hashable, Sendable, CustomStringConvertible {
    /// In the order summaries count a cloud by: its first failed filter. A lost cloud counts as lost whatever else it fails.
    public enum Filter: String, Hashable, Sendable, Comparable, CaseIterable {
        case lost
        case capability
        case residency
        case latency
        /// `dependsOn[].maxLatencyMs`: too far from where the other end of an edge may run, or runs.
        case locality
        case spread
        case dr
        case capacity
        case cost

        public static func < (lhs: Filter, rhs: Filter) -> Bool {
            allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
        }
    }

    public var filter: Filter
    /// The rule's text without the filter's name, e.g. `personal data of audience ru allows [RU] (152-FZ), cloud is [DE, EU]`.
    public var detail: String
    /// The law behind a residency reason, for summaries such as `4 residency (152-FZ)`.
    public var law: String?

    public init(_ filter: Filter, _ detail: String, law: String? = nil) {
        self.filter = filter
        self.detail = detail
        self.law = law
    }

    public var description: String { "\(filter.rawValue): \(detail)" }
}
