public import MCloudCore
public import MCloudProvider

/// Makes a deployment plan: resolves the providers, refreshes what the state records (every cloud at once), and
/// diffs the desired resources against state and clouds.
public enum PlanMaker {
    public struct Request: Sendable {
        public var operation: DeploymentPlan.Operation
        public var application: String
        /// Empty for destroy.
        public var desired: [DesiredResource]
        public var state: State?
        public var refresh: Bool
        public var inputDigest: String
        public var targets: TargetSelection
        /// Clouds taken as gone beside those the state records (a failover's).
        public var losing: Set<String>
        /// Recorded resources to keep beside those the state retains (a failover's restore sources).
        public var retaining: Set<ResourceAddress>
        /// Lost clouds that are back (`--recovered`): read again, and what the state kept there cleaned up.
        public var recovering: Set<String>

        public init(
            operation: DeploymentPlan.Operation, application: String, desired: [DesiredResource], state: State?, refresh: Bool,
            inputDigest: String, targets: TargetSelection = TargetSelection([]), losing: Set<String> = [], retaining: Set<ResourceAddress> = [],
            recovering: Set<String> = []
        ) {
            self.recovering = recovering
            self.targets = targets
            self.losing = losing
            self.retaining = retaining
            self.operation = operation
            self.application = application
            self.desired = desired
            self.state = state
            self.refresh = refresh
            self.inputDigest = inputDigest
        }
    }

    public static func plan(_ request: Request, clouds: [String: Cloud], catalog: any ProviderCatalog) async throws(EngineError) -> DeploymentPlan {
        if let owner = request.state?.application, owner != request.application {
            throw EngineError(
                "this state belongs to application \(owner), not \(request.application); each application needs a state of its own (--state)"
            )
        }
        let recordedLost = Set(request.state?.lost ?? [])
        if let unknown = request.recovering.subtracting(recordedLost).sorted().first {
            throw EngineError("--recovered \(unknown): the state does not record \(unknown) as lost\(recordedLost.isEmpty ? "" : " (it records \(recordedLost.sorted().joined(separator: ", ")))")")
        }
        let lost = recordedLost.union(request.losing).subtracting(request.recovering)
        if let stray = request.desired.first(where: { lost.contains($0.cloud) }) {
            throw EngineError("\(stray.address) is in \(stray.cloud), which is taken as lost; the placement must leave lost clouds out")
        }
        // A lost cloud is unreachable: what the state records there is neither read nor deleted, and stays recorded.
        // A retained resource stays too, unless the manifests want it again; destroy takes it.
        let whole = request.state ?? State()
        let wanted = Set(request.desired.map(\.address))
        let retained: Set<ResourceAddress> = request.operation == .destroy ? [] : Set(whole.retained).union(request.retaining).filter { whole[$0] != nil && !wanted.contains($0) }
        let kept = whole.unorderedResources.filter { lost.contains($0.cloud) || retained.contains($0.address) }.map(\.address).sorted()
        var reachable = whole
        for address in kept { reachable.remove(address: address) }
        let (desired, state) = request.targets.select(desired: request.desired, state: reachable)
        var request = request
        request.desired = desired
        let needs = request.desired.map { (address: $0.address, provider: $0.provider, cloud: $0.cloud) }
            + state.unorderedResources.map { (address: $0.address, provider: $0.provider, cloud: $0.cloud) }
        let providers = try ProviderSet(needs: needs, clouds: clouds, catalog: catalog)
        let problems = request.desired.flatMap { resource in
            (providers.provider(resource.provider, cloud: resource.cloud)?.problems(desired: resource) ?? []).map { "  \(resource.address): \($0)" }
        }
        guard problems.isEmpty else { throw EngineError("cannot be delivered, so nothing was planned:\n" + problems.joined(separator: "\n")) }
        var observed = request.refresh ? try await refresh(request, state: state, providers: providers) : nil
        // A targeted plan leaves what lies outside the targets alone: the refresh also finds the application's other
        // resources by their labels, which the cut-down state does not record, and they are not leftovers to delete.
        if !request.targets.isEverything {
            let selected = Set(request.desired.map(\.address))
            observed = observed?.filter { state[$0.key] != nil || selected.contains($0.key) || request.targets.matches($0.key) }
        }
        let reported = (observed ?? [:]).compactMapValues { EndpointSliceFill.reportedAddresses($0.attributes) }
        request.desired = EndpointSliceFill.filled(request.desired, reported: reported, state: state)
        var changes = ChangeSet.changes(desired: request.desired, state: state, observed: observed) { desired, current in
            providers.provider(desired.provider, cloud: desired.cloud)?.replacementReasons(desired: desired, current: current) ?? []
        }
        if request.operation != .destroy, let conflict = SwitchedOverCell.conflict(changes, primaries: whole.primaries, lost: recordedLost) { throw EngineError(conflict) }
        let open = EndpointSliceFill.openEgress(request.desired) { source in observed.map { $0[source] != nil } ?? (state[source] != nil) }
        for index in changes.indices { if let warning = open[changes[index].address] { changes[index].warnings.append(warning) } }
        // The placement last applied against the new one: replicas changed by hand are drift, not a move.
        func placed(_ provider: ProviderName, _ cloud: String, _ body: JSONValue) -> (cloud: String, placed: CellReplicas)? {
            providers.provider(provider, cloud: cloud)?.cellReplicas(of: body).map { (cloud: cloud, placed: $0) }
        }
        let moves = PlacementMove.moves(
            before: state.unorderedResources.compactMap { placed($0.provider, $0.cloud, $0.attributes) },
            after: request.desired.compactMap { placed($0.provider, $0.cloud, $0.body) }
        )
        return DeploymentPlan(
            operation: request.operation, application: request.application, changes: changes, moves: moves, state: .init(request.state),
            inputDigest: request.inputDigest, refreshed: request.refresh, targeted: !request.targets.isEverything,
            lost: lost.sorted(), newlyLost: lost.subtracting(recordedLost).sorted(), kept: kept,
            newlyRetained: retained.subtracting(whole.retained).sorted(), recovered: request.recovering.sorted()
        )
    }

    /// Reads every cloud where the state records something, concurrently. A cloud where mcloud has created nothing
    /// is not contacted: there is nothing of ours to find, and a plan of a new application then needs no credentials.
    static func refresh(_ request: Request, state: State, providers: ProviderSet) async throws(EngineError) -> [ResourceAddress: ObservedResource] {
        let recordedGroups = Set(state.unorderedResources.map { "\($0.provider) \($0.cloud)" })
        let chosen = providers.all.filter { recordedGroups.contains("\($0.name) \($0.cloud)") }
        let application = request.application
        let results = await withTaskGroup(of: Result<[ObservedResource], EngineError>.self) { group in
            for provider in chosen {
                let desired = request.desired.filter { $0.provider == provider.name && $0.cloud == provider.cloud }
                let recorded = state.resources.filter { $0.provider == provider.name && $0.cloud == provider.cloud }
                group.addTask {
                    do throws(ProviderError) {
                        return .success(try await provider.refresh(application: application, desired: desired, recorded: recorded))
                    } catch {
                        return .failure(EngineError("refreshing \(provider.name) in \(provider.cloud) failed: \(error.message)"))
                    }
                }
            }
            var collected: [Result<[ObservedResource], EngineError>] = []
            for await result in group { collected.append(result) }
            return collected
        }
        var observed: [ResourceAddress: ObservedResource] = [:]
        var failures: [String] = []
        for result in results {
            switch result {
            case .success(let found): for resource in found { observed[resource.address] = resource }
            case .failure(let error): failures.append(error.message)
            }
        }
        guard failures.isEmpty else { throw EngineError(failures.sorted().joined(separator: "\n")) }
        return observed
    }
}
