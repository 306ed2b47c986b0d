public import MCloudCore
public import MCloudProvider

/// What apply will do: every resource change with its reason, the placement moves, and the state and inputs the
/// plan was made from, so a saved plan that no longer matches the state is refused. Its JSON (`document`) is what
/// `plan --json` prints, what `plan --out` saves and what the human view is drawn from.
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
    /// cli.md's `placement` and `explanations` for an apply plan; nil for destroy, which places nothing.
    public var placement: (placement: JSONValue, explanations: JSONValue)?
    public var changes: [ResourceChange]
    public var moves: [PlacementMove]
    public var state: StateReference
    /// SHA-256 of the manifests and catalog the plan was made from.
    public var inputDigest: String
    public var refreshed: Bool

    public init(
        operation: Operation, application: String, placement: (placement: JSONValue, explanations: JSONValue)?,
        changes: [ResourceChange], moves: [PlacementMove], state: StateReference, inputDigest: String, refreshed: Bool
    ) {
        self.operation = operation
        self.application = application
        self.placement = placement
        self.changes = changes
        self.moves = moves
        self.state = state
        self.inputDigest = inputDigest
        self.refreshed = refreshed
    }

    public var hasChanges: Bool { changes.contains { $0.action != .noOp } }

    public func count(_ action: ResourceChange.Action) -> Int { changes.filter { $0.action == action }.count }

    public static let formatVersion = "1.0"

    /// cli.md's plan JSON, with mcloud's additions: each change's reason, drift and dependencies, the placement moves,
    /// and the state and input digest. Before and after are redacted.
    public var document: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("format_version", .string(Self.formatVersion)),
            ("operation", .string(operation.rawValue)),
            ("application", .string(application)),
        ]
        if let placement {
            fields += [("placement", placement.placement), ("explanations", placement.explanations)]
        }
        fields += [
            ("placement_moves", .array(moves.map(\.json))),
            ("resource_changes", .array(changes.map(Self.json))),
            ("summary", .object([ResourceChange.Action.create, .update, .replace, .delete].map { ($0.rawValue, .int(count($0))) })),
            ("state", .object([("lineage", state.lineage.map(JSONValue.string) ?? .null), ("serial", .int(state.serial))])),
            ("input_digest", .string(inputDigest)),
            ("refreshed", .bool(refreshed)),
        ]
        return .object(fields)
    }

    static func json(_ change: ResourceChange) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("address", .string(change.address.rawValue)), ("cloud", .string(change.cloud)), ("provider", .string(change.provider.rawValue)),
            ("type", .string(change.type.rawValue)), ("action", .string(change.action.rawValue)), ("reason", .string(change.reason)),
        ]
        if !change.drift.isEmpty { fields.append(("drift", .array(change.drift.map(JSONValue.string)))) }
        if let id = change.recorded?.providerID { fields.append(("provider_id", .string(id))) }
        fields.append(("dependencies", .array((change.after?.dependencies ?? change.recorded?.dependencies ?? []).map { .string($0.rawValue) })))
        // A resource that stays as it is carries no bodies: with thousands of them they would be most of the plan,
        // and `mcloud state show ADDRESS` has them.
        guard change.action != .noOp else { return .object(fields) }
        fields += [
            ("before", change.before.map(SecretRedaction.redact) ?? .null),
            ("after", change.after.map { SecretRedaction.redact($0.body) } ?? .null),
        ]
        return .object(fields)
    }
}
