/// Rules every plan is checked against after it is made (docs/manifests.md, "Policy"): limits on the cost and its
/// rise, resources that must not be deleted, clouds cells must not leave, and an independent restatement of where
/// a data class may go. An `advisory` rule that fails is a warning; a `mandatory` one fails the plan.
public struct Policy: Hashable, Sendable {
    public enum Level: String, Hashable, Sendable, CaseIterable {
        case advisory
        case mandatory
    }

    public enum Rule: Hashable, Sendable {
        /// The monthly cost after the plan, in the application's currency, at most this.
        case maxMonthlyCost(Double)
        /// The monthly cost after the plan at most this many percent above the one recorded at the last apply.
        case maxCostIncrease(percent: Double)
        /// No resource matching a kind or an address pattern is deleted or replaced.
        case denyDelete(kinds: [String], addresses: [String])
        /// No cell that ran on one of these clouds stops running there.
        case denyMove(from: [String])
        /// Every cell holding `data` that serves `audience` uses only clouds with a jurisdiction tag in `allowed`.
        case requireResidency(data: String, audience: String, allowed: [String])

        /// The rule's key in the manifest.
        public var name: String {
            switch self {
            case .maxMonthlyCost: return "maxMonthlyCost"
            case .maxCostIncrease: return "maxCostIncrease"
            case .denyDelete: return "denyDelete"
            case .denyMove: return "denyMove"
            case .requireResidency: return "requireResidency"
            }
        }

        public static let names = ["maxMonthlyCost", "maxCostIncrease", "denyDelete", "denyMove", "requireResidency"]
    }

    /// One rule as written: what it requires, how hard, and where (the rule's entry in `spec.rules`).
    public struct Entry: Hashable, Sendable {
        public var rule: Rule
        public var level: Level
        public var location: SourceLocation

        public init(rule: Rule, level: Level, location: SourceLocation) {
            self.rule = rule
            self.level = level
            self.location = location
        }
    }

    /// The kinds of workload `denyDelete.kinds` may name: each stands for every resource rendered for its cells.
    public static let workloadKinds = ["CDN", "Database", "Service"]
    /// The resource kinds mcloud renders, which `denyDelete.kinds` may name as well (a Kubernetes Service is a
    /// resource of a Service cell). Tests hold this list to what rendering makes.
    public static let resourceKinds = [
        "BackupBucket", "BackupIdentity", "BackupSchedule", "CDNResource", "ConfigMap", "DatabaseServer", "Deployment", "EndpointSlice",
        "HorizontalPodAutoscaler", "Ingress", "ManagedDatabase", "Namespace", "NetworkPolicy", "PodDisruptionBudget", "Secret", "SecurityGroup",
        "ServiceExport", "Volume",
    ]

    public var name: String
    /// In the order written.
    public var rules: [Entry]
    public var location: SourceLocation

    public init(name: String, rules: [Entry], location: SourceLocation) {
        self.name = name
        self.rules = rules
        self.location = location
    }
}
