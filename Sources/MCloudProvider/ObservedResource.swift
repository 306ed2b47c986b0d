public import MCloudCore

/// What a provider found in the cloud for one address.
public struct ObservedResource: Sendable, Hashable {
    public var address: ResourceAddress
    /// The cloud's own ID: a Kubernetes UID, an OpenStack server ID.
    public var providerID: String
    /// The resource as the cloud reports it, in the shape of the desired body (the provider leaves out what the
    /// cloud adds on its own, such as status and defaults), so it compares field by field with the body.
    public var attributes: JSONValue
    /// Set when the cloud is deleting it: it counts as gone, and creating it again waits for the cloud.
    public var isBeingDeleted: Bool
    /// What the refresh found wrong that no apply fixes, such as a DR leg whose backups stopped; shown on the plan.
    public var warnings: [String]
    /// A workload's rollout as the cloud reports it; nil for what runs no replicas.
    public var rollout: Rollout?

    public init(
        address: ResourceAddress, providerID: String, attributes: JSONValue, isBeingDeleted: Bool = false, warnings: [String] = [],
        rollout: Rollout? = nil
    ) {
        self.rollout = rollout
        self.address = address
        self.providerID = providerID
        self.attributes = attributes
        self.isBeingDeleted = isBeingDeleted
        self.warnings = warnings
    }
}
