import MCloudCore
public import MCloudProvider

/// What the placement costs a month now, as the state recorded it at the last complete apply, and after the plan,
/// per cloud, cell and CDN, in the application's currency: the `cost` of the plan document. `before` is nil when
/// the state records no cost (no apply yet, or a state written before mcloud recorded it); `delta` then too.
public struct CostDiff: Sendable, Hashable {
    /// One side's amounts, each list sorted by name.
    public struct Amounts: Sendable, Hashable {
        public var monthly: Double
        public var byCloud: [PlacementReport.Amount]
        public var byCell: [PlacementReport.Amount]
        public var byCDN: [PlacementReport.Amount]

        public static let zero = Amounts(monthly: 0, byCloud: [], byCell: [], byCDN: [])

        public init(monthly: Double, byCloud: [PlacementReport.Amount], byCell: [PlacementReport.Amount], byCDN: [PlacementReport.Amount]) {
            self.monthly = monthly
            self.byCloud = byCloud
            self.byCell = byCell
            self.byCDN = byCDN
        }

        /// A placement's cost, each list sorted by name.
        public init(_ cost: PlacementReport.Cost) {
            func sorted(_ amounts: [PlacementReport.Amount]) -> [PlacementReport.Amount] { amounts.sorted { $0.name < $1.name } }
            self.init(monthly: cost.monthly, byCloud: sorted(cost.byCloud), byCell: sorted(cost.byCell), byCDN: sorted(cost.byCDN))
        }
    }

    public var currency: String
    public var before: Amounts?
    public var after: Amounts

    public init(currency: String, before: Amounts?, after: Amounts) {
        self.currency = currency
        self.before = before
        self.after = after
    }

    /// The recorded cost against the plan's. A cost recorded in another currency (the application's has changed
    /// since) is converted with `rate`, the value of one unit of it; without a rate there is no before.
    public init(recorded: AppliedPlacement.Cost?, after: PlacementReport.Cost?, currency: String, rate: (String) -> Double?) {
        func sorted(_ amounts: [PlacementReport.Amount]) -> [PlacementReport.Amount] { amounts.sorted { $0.name < $1.name } }
        let planned = after.map(Amounts.init)
        var before: Amounts?
        if let recorded, let factor = recorded.currency == currency ? 1 : rate(recorded.currency) {
            func converted(_ amounts: [String: Double]) -> [PlacementReport.Amount] {
                sorted(amounts.map { PlacementReport.Amount(name: $0.key, amount: PlacementReport.rounded($0.value * factor)) })
            }
            before = Amounts(
                monthly: PlacementReport.rounded(recorded.monthly * factor), byCloud: converted(recorded.byCloud),
                byCell: converted(recorded.byCell), byCDN: converted(recorded.byCDN)
            )
        }
        self.init(currency: currency, before: before, after: planned ?? .zero)
    }

    /// After minus before, for every name on either side (a name on one side only counts 0 on the other).
    public var delta: Amounts? {
        guard let before else { return nil }
        func difference(_ old: [PlacementReport.Amount], _ new: [PlacementReport.Amount]) -> [PlacementReport.Amount] {
            let was = Dictionary(old.map { ($0.name, $0.amount) }, uniquingKeysWith: { first, _ in first })
            let now = Dictionary(new.map { ($0.name, $0.amount) }, uniquingKeysWith: { first, _ in first })
            return Set(was.keys).union(now.keys).sorted().map { PlacementReport.Amount(name: $0, amount: PlacementReport.rounded((now[$0] ?? 0) - (was[$0] ?? 0))) }
        }
        return Amounts(
            monthly: PlacementReport.rounded(after.monthly - before.monthly), byCloud: difference(before.byCloud, after.byCloud),
            byCell: difference(before.byCell, after.byCell), byCDN: difference(before.byCDN, after.byCDN)
        )
    }

    /// The change as a percentage of the cost before; nil when there is no before, or it was 0.
    public var percentChange: Double? {
        guard let before, before.monthly > 0 else { return nil }
        return (after.monthly - before.monthly) / before.monthly * 100
    }
}

extension PlacementReport {
    /// What apply records in the state once it has made this placement.
    public var applied: AppliedPlacement {
        var sites: [String: AppliedPlacement.Site] = [:]
        for cell in cells {
            switch cell.site {
            case .replicas(let replicas):
                sites[cell.name] = .replicas(Dictionary(replicas.map { ($0.cloud, $0.count) }, uniquingKeysWith: +))
            case .database(let primary, let backup):
                sites[cell.name] = .database(primary: primary, backup: backup)
            }
        }
        func amounts(_ list: [Amount]) -> [String: Double] { Dictionary(list.map { ($0.name, $0.amount) }, uniquingKeysWith: { first, _ in first }) }
        return AppliedPlacement(
            cells: sites, cdns: Dictionary(cdns.map { ($0.name, $0.cloud) }, uniquingKeysWith: { first, _ in first }),
            cost: .init(currency: cost.currency, monthly: cost.monthly, byCloud: amounts(cost.byCloud), byCell: amounts(cost.byCell), byCDN: amounts(cost.byCDN))
        )
    }
}
