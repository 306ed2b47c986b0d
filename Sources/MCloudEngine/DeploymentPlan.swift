public import MCloudProvider

/// What apply will do: every resource change with its reason, the placement moves, and the state and inputs the
/// plan was made from, so a saved plan that no longer matches the state is refused. `MCloudViews.PlanDocument`
/// joins it with the placement and is what `plan --json` prints, `plan --out` saves and the views are drawn from.
public struct DeploymentPlan: Sendable {
    public enum Operation: String, Sendable {
        case apply, destroy
    }

    /// The state the plan was made from: nil lineage when there was none yet.
    public struct StateReference: Sendable, Hashable {
        public var lineage: String?
        public var serial: Int

        public init(lineage: String?, serial: Int) {
            self.lineage = lineage
            self.serial = serial
        }

        public init(_ state: State?) {
            self.init(lineage: state?.lineage, serial: state?.serial ?? 0)
        }
    }

    public var operation: Operation
    public var application: String
    public var changes: [ResourceChange]
    public var moves: [PlacementMove]
    public var state: StateReference
    /// SHA-256 of the manifests and catalog the plan was made from.
    public var inputDigest: String
    public var refreshed: Bool
    /// Made with `--target`: it covers part of the application, so applying it does not make its placement the
    /// one the state records.
    public var targeted: Bool
    /// The clouds taken as gone (a failover's, and those the state records), sorted: applying the plan records them
    /// in the state.
    public var lost: [String]
    /// The lost clouds the state did not record yet.
    public var newlyLost: [String]
    /// What the plan leaves as it is, sorted: what the state records in the lost clouds (neither read nor changed),
    /// and the resources a failover retains (`State.retained`).
    public var kept: [ResourceAddress]
    /// The resources this plan retains that the state did not retain yet: applying it records them.
    public var newlyRetained: [ResourceAddress]
    /// Lost clouds that are back: the plan reads them again and cleans up what the state kept there; once it is
    /// applied they are no longer lost.
    public var recovered: [String]

    public init(
        operation: Operation, application: String, changes: [ResourceChange], moves: [PlacementMove], state: StateReference,
        inputDigest: String, refreshed: Bool, targeted: Bool = false, lost: [String] = [], newlyLost: [String] = [],
        kept: [ResourceAddress] = [], newlyRetained: [ResourceAddress] = [], recovered: [String] = []
    ) {
        self.recovered = recovered
        self.newlyRetained = newlyRetained
        self.targeted = targeted
        self.lost = lost
        self.newlyLost = newlyLost
        self.kept = kept
        self.operation = operation
        self.application = application
        self.changes = changes
        self.moves = moves
        self.state = state
        self.inputDigest = inputDigest
        self.refreshed = refreshed
    }

    /// A change to a resource, or a lost cloud or retained resource the state must newly record.
    public var hasChanges: Bool { changes.contains { $0.action != .noOp } || !newlyLost.isEmpty || !newlyRetained.isEmpty || !recovered.isEmpty }

    /// Counted in place: filtering first copied every matching change, a measurable share of a large plan's write and
    /// read (docs/benchmarks.md, engine-plan).
    public func count(_ action: ResourceChange.Action) -> Int {
        var count = 0
        for change in changes where change.action == action { count += 1 }
        return count
    }
}
