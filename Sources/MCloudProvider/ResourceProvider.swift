public import MCloudCore

/// One provider's view of one cloud: reads what mcloud manages there and creates, changes and deletes it. The
/// engine decides what to do; a provider only knows how.
public protocol ResourceProvider: Sendable {
    /// `kubernetes`, `openstack`, `aws`, `cdn`.
    var name: ProviderName { get }
    var cloud: String { get }

    /// What exists for the given addresses, found with few calls (a list per kind and namespace by mcloud's labels,
    /// not one read per object). Also returns resources carrying `application`'s labels that neither list names, so
    /// an interrupted apply's leftovers are found. An address that does not exist is left out.
    func refresh(application: String, desired: [DesiredResource], recorded: [ResourceState]) async throws(ProviderError) -> [ObservedResource]

    /// Why `desired` cannot be reached from `current` in place: each entry names an immutable field that differs.
    /// Empty when an update will do.
    func replacementReasons(desired: DesiredResource, current: JSONValue) -> [String]

    /// Creates the resource, or takes over one that a lost answer already created (found by its labels or tags).
    func create(_ resource: DesiredResource) async throws(ProviderError) -> ObservedResource

    /// Changes the resource in place to match `resource`.
    func update(_ resource: DesiredResource, recorded: ResourceState) async throws(ProviderError) -> ObservedResource

    /// Deletes the resource and returns once the cloud no longer serves it (or has it marked for deletion, where the
    /// cloud finishes on its own, as with a Kubernetes namespace). Deleting what is already gone succeeds.
    func delete(_ resource: ResourceState) async throws(ProviderError)

    /// The cell whose replicas `body` (desired or recorded) runs, and how many; nil for anything else.
    func cellReplicas(of body: JSONValue) -> CellReplicas?

    /// Why `desired` cannot be delivered, known from the body alone: the plan fails with these before it reads or
    /// changes anything, so that apply never stops on them halfway. Empty when the provider sees no obstacle.
    func problems(desired: DesiredResource) -> [String]
}

extension ResourceProvider {
    /// Most providers learn what they cannot deliver only from the cloud.
    public func problems(desired: DesiredResource) -> [String] { [] }

    /// Most resources run no replicas of a cell.
    public func cellReplicas(of body: JSONValue) -> CellReplicas? { nil }
}
