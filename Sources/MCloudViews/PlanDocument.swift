public import MCloudEngine

/// The plan, typed: where every cell runs and why (for an apply plan), and what apply will do to every resource,
/// with the state and inputs it was made from. Built once; `plan --json`, `plan --out`, `show` and the human views
/// all come from it, and `PlanDocument+JSON.swift` is where it becomes docs/cli.md's JSON (`PlanDocument+Parsing.swift`
/// reads that back). A placement-only plan (`plan --placement-only`, or a catalog without endpoints) has the
/// placement and no deployment: it read no state and no cloud, and apply refuses it.
public struct PlanDocument: Sendable {
    /// The version of the JSON format; a saved plan of another version is refused.
    public static let formatVersion = "1.0"

    public var application: String
    /// What apply carries out: the operation, the resource changes with their reasons, the placement moves, and the
    /// state and input digest it was made from. Nil for a placement-only plan.
    public var deployment: DeploymentPlan?
    /// Nil for destroy, which places nothing.
    public var placement: PlacementReport?
    /// The monthly cost recorded at the last apply against the cost after this plan.
    public var cost: CostDiff?
    /// Every policy rule's verdict on this plan.
    public var policy: PolicyReport?
    /// Why a placement-only plan has no deployment, in a sentence the views print.
    public var placementOnlyNote: String?

    public init(deployment: DeploymentPlan, placement: PlacementReport?, cost: CostDiff? = nil, policy: PolicyReport? = nil) {
        application = deployment.application
        self.deployment = deployment
        self.placement = placement
        self.cost = cost
        self.policy = policy
    }

    public init(placementOnly placement: PlacementReport, application: String, note: String) {
        self.application = application
        self.placement = placement
        placementOnlyNote = note
    }

    /// How many resources each action touches, in the document's order; empty for a placement-only plan.
    public var summary: [(action: ResourceChange.Action, count: Int)] {
        guard let deployment else { return [] }
        return [ResourceChange.Action.create, .update, .replace, .delete].map { (action: $0, count: deployment.count($0)) }
    }
}
