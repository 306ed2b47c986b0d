public import MCloudCore
public import MCloudProvider

/// What apply will do to one address, and why.
public struct ResourceChange: Sendable {
    public enum Action: String, Sendable, CaseIterable {
        case create, update, replace, delete
        case noOp = "no-op"

        /// The symbol of the human plan, as Terraform users know it.
        public var symbol: String {
            switch self {
            case .create: return "+"
            case .update: return "~"
            case .replace: return "-/+"
            case .delete: return "-"
            case .noOp: return " "
            }
        }
    }

    public var address: ResourceAddress
    public var provider: ProviderName
    public var cloud: String
    public var type: ResourceKind
    public var action: Action
    /// Why this action, in a sentence: "not yet created", "changed in the manifests", "spec.selector is immutable".
    public var reason: String
    /// What changed outside mcloud since the last apply, one entry per field (empty when nothing did).
    public var drift: [String]
    /// The resource as it is now (the cloud's view after a refresh, else the state's), nil when it does not exist.
    public var before: JSONValue?
    /// What it will be; nil for a delete.
    public var after: DesiredResource?
    /// What the state records, needed to update or delete it.
    public var recorded: ResourceState?
    /// The refresh's warnings on the resource (`ObservedResource.warnings`).
    public var warnings: [String]

    public init(
        address: ResourceAddress, provider: ProviderName, cloud: String, type: ResourceKind, action: Action, reason: String, drift: [String] = [],
        before: JSONValue?, after: DesiredResource?, recorded: ResourceState?, warnings: [String] = []
    ) {
        self.address = address
        self.provider = provider
        self.cloud = cloud
        self.type = type
        self.action = action
        self.reason = reason
        self.drift = drift
        self.before = before
        self.after = after
        self.recorded = recorded
        self.warnings = warnings
    }

    /// The fields that change, for the human plan.
    public var fieldChanges: [FieldDiff.Change] {
        switch action {
        case .update, .replace: return FieldDiff.changes(from: before, to: after?.body)
        case .create, .delete, .noOp: return []
        }
    }
}
