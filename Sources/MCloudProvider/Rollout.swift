public import MCloudCore

/// How far a workload's replicas are rolled out, as the cloud reports it (a Deployment's `status`): what
/// `mcloud status` judges a cell's health by. Kept apart from `ObservedResource.attributes`, which hold only the
/// body's fields so that they compare with the state.
public struct Rollout: Sendable, Hashable {
    /// The replicas the live object asks for (`spec.replicas`, which an autoscaler may have changed).
    public var desired: Int
    /// Replicas whose pods pass their readiness checks.
    public var ready: Int
    /// Replicas already running the newest template.
    public var updated: Int
    /// False while the controller has not yet seen the newest change to the object (`observedGeneration`).
    public var observed: Bool

    public init(desired: Int, ready: Int, updated: Int, observed: Bool = true) {
        self.desired = desired
        self.ready = ready
        self.updated = updated
        self.observed = observed
    }

    /// Read from a live Deployment; nil for any other object.
    public init?(deployment object: JSONValue) {
        guard object["kind"]?.stringValue == ResourceKind.deployment.rawValue else { return nil }
        let status = object["status"] ?? .object([])
        desired = object.value(at: ["spec", "replicas"])?.intValue ?? 1
        ready = status["readyReplicas"]?.intValue ?? 0
        updated = status["updatedReplicas"]?.intValue ?? 0
        let generation = object.value(at: ["metadata", "generation"])?.intValue
        let seen = status["observedGeneration"]?.intValue
        observed = generation == nil || seen.map { $0 >= generation ?? 0 } ?? false
    }
}
