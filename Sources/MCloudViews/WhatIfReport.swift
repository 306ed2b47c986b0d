public import MCloudCore
public import MCloudPlanner

/// `plan --lose`: the placement with every cloud beside the one without the lost clouds, as typed values the human
/// view and the JSON both draw from: each cell or CDN that moves (from, to, monthly cost before and after), the cells
/// that can no longer be placed with their scheduler-style summary, and the cost of each side.
public struct WhatIfReport: Sendable, Hashable {
    public struct Move: Sendable, Hashable {
        public enum Site: Sendable, Hashable {
            case cell(PlacementReport.Site)
            case cdn(cloud: String)

            /// `Service`, `Database` or `CDN`.
            public var kind: String {
                switch self {
                case .cell(let site): return site.kind
                case .cdn: return "CDN"
                }
            }
        }

        public var name: String
        public var before: Site
        public var after: Site
        public var monthlyBefore: Double
        public var monthlyAfter: Double
    }

    public struct Unplaceable: Sendable, Hashable {
        public var name: String
        /// Where it runs with every cloud.
        public var before: Move.Site?
        /// `payments-db@ru: 0/9 clouds fit: 5 residency (152-FZ), 3 capacity, 1 lost`
        public var summary: String
        public var hints: [String]
        public var rejected: [PlacementReport.Explanation.Rejection]
    }

    public var application: String
    /// Sorted by name.
    public var lost: [String]
    public var before: PlacementReport
    /// Without the lost clouds, and without the unplaceable cells.
    public var after: PlacementReport
    /// Sorted by name, cells before CDNs.
    public var moves: [Move]
    public var unplaceable: [Unplaceable]
    /// Cells and CDNs that stay where they are.
    public var unchanged: Int

    public var cost: CostDiff {
        CostDiff(currency: before.cost.currency, before: CostDiff.Amounts(before.cost), after: CostDiff.Amounts(after.cost))
    }

    /// Something moves or cannot be placed.
    public var hasChanges: Bool { !moves.isEmpty || !unplaceable.isEmpty }

    public init(_ whatIf: WhatIf) {
        application = whatIf.current.application
        lost = whatIf.lost
        before = PlacementReport(whatIf.current)
        after = PlacementReport(whatIf.after)
        func sites(_ report: PlacementReport) -> [String: Move.Site] {
            var sites: [String: Move.Site] = [:]
            for cell in report.cells { sites[cell.name] = .cell(cell.site) }
            for cdn in report.cdns { sites[cdn.name] = .cdn(cloud: cdn.cloud) }
            return sites
        }
        func amounts(_ report: PlacementReport) -> [String: Double] {
            Dictionary((report.cost.byCell + report.cost.byCDN).map { ($0.name, $0.amount) }, uniquingKeysWith: { first, _ in first })
        }
        let was = sites(before), now = sites(after)
        let costWas = amounts(before), costNow = amounts(after)
        let order = before.cells.map(\.name) + before.cdns.map(\.name)
        moves = order.compactMap { name in
            guard let old = was[name], let new = now[name], old != new else { return nil }
            return Move(name: name, before: old, after: new, monthlyBefore: costWas[name] ?? 0, monthlyAfter: costNow[name] ?? 0)
        }
        unplaceable = whatIf.unplaceable.map { cell in
            Unplaceable(
                name: cell.cell, before: was[cell.cell], summary: cell.summary, hints: cell.hints,
                rejected: cell.rejected.map { .init(cloud: $0.cloud, reasons: $0.reasons.map(\.description)) }
            )
        }
        unchanged = order.count - moves.count - unplaceable.count
    }
}

extension WhatIfReport {
    /// `plan --lose --json`: the lost clouds, both placements (docs/cli.md's `placement` shape), the moves, the cells that
    /// cannot be placed and the cost diff (the `cost` shape of the plan document, before = every cloud).
    public var json: JSONValue {
        .object([
            ("format_version", .string(PlanDocument.formatVersion)),
            ("operation", .string("what-if")),
            ("application", .string(application)),
            ("lost", .array(lost.map(JSONValue.string))),
            ("before", before.placementJSON),
            ("after", after.placementJSON),
            ("moves", .array(moves.map { move in
                .object([
                    ("name", .string(move.name)), ("kind", .string(move.before.kind)),
                    ("before", Self.json(move.before)), ("after", Self.json(move.after)),
                    ("monthly", .object([("before", .rounded(move.monthlyBefore)), ("after", .rounded(move.monthlyAfter))])),
                ])
            })),
            ("unplaceable", .array(unplaceable.map { cell in
                .object([
                    ("name", .string(cell.name)), ("before", cell.before.map(Self.json) ?? .null), ("summary", .string(cell.summary)),
                    ("hints", .array(cell.hints.map(JSONValue.string))),
                    ("rejected", .object(cell.rejected.map { ($0.cloud, .array($0.reasons.map(JSONValue.string))) })),
                ])
            })),
            ("unchanged", .int(unchanged)),
            ("cost", cost.json),
        ])
    }

    static func json(_ site: Move.Site) -> JSONValue {
        switch site {
        case .cell(let site): return .object(PlacementReport.siteFields(site))
        case .cdn(let cloud): return .object([("cloud", .string(cloud))])
        }
    }
}
