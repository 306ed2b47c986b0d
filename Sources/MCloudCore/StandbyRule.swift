/// Which standbys a placement may hold. mcloud plans a standby only where it replicates: a managed engine, or VMs whose
/// recipe replicates (docs/databases.md, "Standbys"). docs/planner.md's problem, which the shared placement bench is
/// built from, counts a standby as capacity and cost only, whatever the engine; only the planner benchmark plans under
/// that rule, to compare its costs with the bench's references (docs/planner.md, "Standbys that cannot replicate").
public enum StandbyRule: Sendable, Hashable {
    case mustReplicate
    case capacityOnly
}
