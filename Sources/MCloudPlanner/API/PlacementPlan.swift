public import MCloudCore

/// Where every cell runs, what it costs, and why each other cloud was not used.
public struct PlacementPlan: Sendable {
    public struct ServicePlacement: Sendable, Hashable {
        public var cell: String
        /// Replicas per cloud, by cloud name; only clouds with at least one replica.
        public var replicas: [(cloud: String, count: Int)]

        public static func == (lhs: ServicePlacement, rhs: ServicePlacement) -> Bool {
            lhs.cell == rhs.cell && lhs.replicas.map(\.cloud) == rhs.replicas.map(\.cloud) && lhs.replicas.map(\.count) == rhs.replicas.map(\.count)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(cell)
        }
    }

    public struct DatabasePlacement: Sendable, Hashable {
        public var cell: String
        public var primary: String
        public var backup: String?
        /// What the cell can lose as placed: its standbys and its DR leg (`EngineCatalog.recoveryObjective`).
        public var recovery: RecoveryObjective?
    }

    public struct CDNPlacement: Sendable, Hashable {
        public var name: String
        public var cloud: String
    }

    /// Monthly cost in the application's currency.
    public struct Cost: Sendable {
        public var currency: String
        public var monthly: Double
        public var byCloud: [(cloud: String, amount: Double)]
        public var byCell: [(cell: String, amount: Double)]
        public var byCDN: [(name: String, amount: Double)]
        /// No placement can cost less than this.
        public var lowerBound: Double
        /// (monthly - lowerBound) / monthly: how far from the optimum this plan can at most be.
        public var gap: Double
    }

    public struct Explanation: Sendable {
        public var cell: String
        public var kind: Cell.Kind
        /// One sentence on why the cell went where it did.
        public var why: String
        /// Every cloud the cell does not use, by name, with every reason; empty unless every reason was asked for
        /// (`Planner.Explanations.every`).
        public var rejected: [(cloud: String, reasons: [Reason])]
        /// How many of the clouds the cell does not use each filter turned away, in the filters' order: a cloud counts
        /// once under each filter among its reasons (`cost` for those that passed but cost more).
        public var counts: [(filter: Reason.Filter, clouds: Int)]
    }

    /// Something the plan does that no rule forbids but a reader should know: a `dependsOn` edge across a border.
    public struct Warning: Sendable, Hashable {
        public var cell: String
        public var message: String
    }

    public var application: String
    /// Sorted by cell name.
    public var services: [ServicePlacement]
    public var databases: [DatabasePlacement]
    public var cdns: [CDNPlacement]
    public var cost: Cost
    /// Sorted by cell name.
    public var explanations: [Explanation]
    /// Every cell's clouds that passed its filters, with the cost there and a verdict on each; sorted by cell name.
    public var considered: [ConsideredClouds]
    /// Work the optimiser did, in cells placed.
    public var steps: Int
    /// In the order of the cells' `dependsOn` edges.
    public var warnings: [Warning] = []
}

/// Cells no placement can satisfy, each with a scheduler-style summary and every cloud's reasons.
public struct PlacementFailure: Error, Sendable, CustomStringConvertible {
    public struct InfeasibleCell: Sendable {
        public var cell: String
        /// `payments-api@ru: 0/7 clouds fit: 4 residency (152-FZ), 2 latency, 1 capacity`
        public var summary: String
        public var rejected: [(cloud: String, reasons: [Reason])]
        /// Changes that let the cell fit, each checked by placing the cell again with it applied (`HintCheck`).
        public var hints: [String] = []
    }

    public var cells: [InfeasibleCell]

    public var description: String { cells.map(\.summary).joined(separator: "\n") }
}
