public import MCloudCore
public import MCloudPlanner

/// Where each cell runs and why, what it costs and how far that can be from the cheapest placement: the
/// `placement` and `explanations` of the plan document. Amounts are kept as the document writes them (to six
/// decimals), so a plan read back from its file shows the same numbers. Built from a `PlacementPlan`, or read back
/// from a saved plan.
public struct PlacementReport: Sendable, Hashable {
    public struct CloudCount: Sendable, Hashable {
        public var cloud: String
        public var count: Int
    }

    /// A service cell's replicas per cloud (only clouds with one or more), or a database cell's primary and backup.
    public enum Site: Sendable, Hashable {
        case replicas([CloudCount])
        case database(primary: String, backup: String?)

        /// The cell kind the document names: `Service` or `Database`.
        public var kind: String {
            switch self {
            case .replicas: return "Service"
            case .database: return "Database"
            }
        }
    }

    public struct Cell: Sendable, Hashable {
        public var name: String
        public var site: Site
        /// One sentence on why the cell went where it did.
        public var why: String?
        /// What a refresh found wrong with the cell's resources (a DR leg whose backups stopped).
        public var warnings: [String] = []
        /// A database cell's recovery points as placed; nil for services and cells with nothing to state.
        public var recovery: RecoveryObjective?
    }

    public struct CDN: Sendable, Hashable {
        public var name: String
        public var cloud: String
    }

    /// An amount of money for a cloud, cell or CDN, by its name.
    public struct Amount: Sendable, Hashable {
        public var name: String
        public var amount: Double
    }

    /// Monthly cost in the application's currency.
    public struct Cost: Sendable, Hashable {
        public var currency: String
        public var monthly: Double
        public var byCloud: [Amount]
        public var byCell: [Amount]
        public var byCDN: [Amount]
        /// No placement can cost less than this.
        public var lowerBound: Double
        /// How far from the optimum this placement can at most be, as a fraction of its cost.
        public var gap: Double
    }

    /// Every cloud one cell does not use, with every reason (when the plan kept them), and those clouds counted by
    /// filter.
    public struct Explanation: Sendable, Hashable {
        public struct Rejection: Sendable, Hashable {
            public var cloud: String
            public var reasons: [String]
        }

        /// The clouds one filter turned away (`cost` for those that passed but cost more).
        public struct Count: Sendable, Hashable {
            public var filter: String
            public var clouds: Int
        }

        public var cell: String
        public var rejected: [Rejection]
        /// By filter name; each cloud once under every filter among its reasons.
        public var counts: [Count]

        /// `counts` nil: counted from the reasons, whose filter is the word before the colon (`Reason.description`).
        public init(cell: String, rejected: [Rejection], counts: [Count]? = nil) {
            self.cell = cell
            self.rejected = rejected
            self.counts = counts ?? Self.counts(rejected)
        }

        static func counts(_ rejected: [Rejection]) -> [Count] {
            var counts: [String: Int] = [:]
            for rejection in rejected {
                let filters = Set(rejection.reasons.map { reason in reason.firstIndex(of: ":").map { String(reason[..<$0]) } ?? reason })
                for filter in filters { counts[filter, default: 0] += 1 }
            }
            return counts.sorted { $0.key < $1.key }.map { Count(filter: $0.key, clouds: $0.value) }
        }
    }

    /// Sorted by name.
    public var cells: [Cell]
    public var cdns: [CDN]
    public var cost: Cost
    /// In the planner's order: by cell name.
    public var explanations: [Explanation]
    /// Every cloud that passed each cell's filters, with the cost there and a verdict; by cell name, amounts as the
    /// document writes them.
    public var considered: [ConsideredClouds] = []
    /// The connections each cluster makes for the `dependsOn` edges (docs/connectivity.md), sorted by dependent,
    /// cluster and target; empty for a plan that wires nothing (placement-only, destroy).
    public var connections: [Connection] = []

    /// `14 cells on 5 clouds`: the cells (services and databases; CDNs aside) and the clouds the placement uses, a
    /// cloud being used when anything placed there costs something (a replica, a primary, a backup leg, a CDN).
    /// `plan` and `report` both say it so, so their counts agree.
    public var cellsOnClouds: String {
        let clouds = Set(cost.byCloud.filter { $0.amount > 0 }.map(\.name)).count
        return "\(cells.count) cell\(cells.count == 1 ? "" : "s") on \(clouds) cloud\(clouds == 1 ? "" : "s")"
    }

    /// As the document writes it: six decimals, so float noise never reaches it.
    static func rounded(_ value: Double) -> Double {
        JSONValue.rounded(value).doubleValue ?? value
    }
}

extension PlacementReport {
    public init(_ plan: PlacementPlan) {
        let why = Dictionary(plan.explanations.map { ($0.cell, $0.why) }, uniquingKeysWith: { first, _ in first })
        var cells = plan.services.map { service in
            Cell(name: service.cell, site: .replicas(service.replicas.map { CloudCount(cloud: $0.cloud, count: $0.count) }), why: why[service.cell])
        }
        cells += plan.databases.map {
            Cell(name: $0.cell, site: .database(primary: $0.primary, backup: $0.backup), why: why[$0.cell], recovery: $0.recovery)
        }
        cells.sort { $0.name < $1.name }
        let warned = Dictionary(grouping: plan.warnings, by: \.cell)
        for index in cells.indices { cells[index].warnings = warned[cells[index].name]?.map(\.message) ?? [] }
        let cost = plan.cost
        self.init(
            cells: cells, cdns: plan.cdns.map { CDN(name: $0.name, cloud: $0.cloud) },
            cost: Cost(
                currency: cost.currency, monthly: Self.rounded(cost.monthly),
                byCloud: cost.byCloud.map { Amount(name: $0.cloud, amount: Self.rounded($0.amount)) },
                byCell: cost.byCell.map { Amount(name: $0.cell, amount: Self.rounded($0.amount)) },
                byCDN: cost.byCDN.map { Amount(name: $0.name, amount: Self.rounded($0.amount)) },
                lowerBound: Self.rounded(cost.lowerBound), gap: Self.rounded(cost.gap)
            ),
            explanations: plan.explanations.map { explanation in
                Explanation(
                    cell: explanation.cell, rejected: explanation.rejected.map { .init(cloud: $0.cloud, reasons: $0.reasons.map(\.description)) },
                    counts: explanation.counts.map { Explanation.Count(filter: $0.filter.rawValue, clouds: $0.clouds) }.sorted { $0.filter < $1.filter }
                )
            },
            considered: plan.considered.map { cell in
                var rounded = cell
                rounded.runnerUpDelta = cell.runnerUpDelta.map(Self.rounded)
                rounded.candidates = cell.candidates.map { candidate in
                    var candidate = candidate
                    candidate.monthly = candidate.monthly.map(Self.rounded)
                    candidate.perReplica = candidate.perReplica.map(Self.rounded)
                    return candidate
                }
                return rounded
            }
        )
    }
}
