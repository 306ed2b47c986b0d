public import MCloudCore
public import MCloudProvider

/// What a failover does (`mcloud failover`): the clouds taken as lost, each restore with its recovery point and that
/// point's age, the cells that start empty, the plan that moves everything, and how it ended. `FailoverView` prints
/// it; `json` is `failover --json`.
public struct FailoverReport: Sendable {
    /// A new primary that loads a backup of the lost one as it boots.
    public struct Restore: Sendable, Hashable {
        public var server: ResourceAddress
        public var recoveryPoint: RecoveryPoint
        public var backupSize: Int
        /// The recovery point's age when the failover was planned: the data it loses, at most.
        public var ageSeconds: Int

        public init(server: ResourceAddress, recoveryPoint: RecoveryPoint, backupSize: Int, ageSeconds: Int) {
            self.server = server
            self.recoveryPoint = recoveryPoint
            self.backupSize = backupSize
            self.ageSeconds = ageSeconds
        }
    }

    public enum Outcome: Sendable, Hashable {
        /// Planned and not yet carried out.
        case planned
        /// Saved for `mcloud apply FILE`.
        case saved(String)
        case applied
        /// The state already had everything off the lost clouds.
        case nothingToMove
    }

    public var lost: [String]
    /// Sorted by server.
    public var restores: [Restore]
    /// Cells without a DR leg, which start empty.
    public var startsEmpty: [String]
    public var plan: PlanDocument
    public var outcome: Outcome = .planned
    /// Resources `--forget-lost` dropped from the state.
    public var forgotten = 0

    public init(lost: [String], restores: [Restore], startsEmpty: [String], plan: PlanDocument) {
        self.lost = lost
        self.restores = restores.sorted { $0.server < $1.server }
        self.startsEmpty = startsEmpty
        self.plan = plan
    }

    public static let formatVersion = "1.0"

    public var json: JSONValue {
        let outcomeText: String
        var saved: JSONValue = .null
        switch outcome {
        case .planned: outcomeText = "planned"
        case .saved(let file):
            outcomeText = "saved"
            saved = .string(file)
        case .applied: outcomeText = "applied"
        case .nothingToMove: outcomeText = "nothing_to_move"
        }
        let restoreItems: [JSONValue] = restores.map { restore in
            .object([
                ("server", .string(restore.server.rawValue)), ("recovery_point", RecoveryPointJSON.json(restore.recoveryPoint)),
                ("backup_size_bytes", .int(restore.backupSize)), ("age_seconds", .int(restore.ageSeconds)),
            ])
        }
        return .object([
            ("format_version", .string(Self.formatVersion)), ("lost", .array(lost.map(JSONValue.string))), ("outcome", .string(outcomeText)),
            ("saved_to", saved), ("restores", .array(restoreItems)), ("starts_empty", .array(startsEmpty.map(JSONValue.string))),
            ("forgotten", .int(forgotten)), ("plan", plan.json),
        ])
    }
}
