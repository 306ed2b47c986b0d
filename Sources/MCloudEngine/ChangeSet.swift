public import MCloudCore
public import MCloudProvider

/// Desired resources against the state and what the clouds report: one change per address, each with its reason.
public enum ChangeSet {
    /// `observed` is nil when refresh was skipped: the state is then taken as the truth about the clouds.
    /// `replacementReasons` asks the resource's provider which immutable fields a change would touch.
    /// Addresses are compared on every core, each on its own, and come back sorted.
    public static func changes(
        desired: [DesiredResource], state: State, observed: [ResourceAddress: ObservedResource]?,
        replacementReasons: @Sendable (DesiredResource, JSONValue) -> [String]
    ) -> [ResourceChange] {
        let desiredByAddress = Dictionary(desired.map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
        var addresses = Set(desiredByAddress.keys).union(state.addresses)
        if let observed { addresses.formUnion(observed.keys) }
        let sorted = addresses.sorted()
        return Parallel.map(sorted.count) { range in
            sorted[range].compactMap { address in
                let recorded = state[address]
                let live: ObservedResource?? = observed.map { $0[address].flatMap { $0.isBeingDeleted ? nil : $0 } }
                if let wanted = desiredByAddress[address] {
                    return change(wanted, recorded: recorded, live: live, replacementReasons: replacementReasons)
                }
                return removal(address, recorded: recorded, live: live)
            }
        }
    }

    private static func change(
        _ wanted: DesiredResource, recorded: ResourceState?, live refreshed: ObservedResource??,
        replacementReasons: (DesiredResource, JSONValue) -> [String]
    ) -> ResourceChange {
        func make(_ action: ResourceChange.Action, _ reason: String, drift: [String] = [], before: JSONValue?) -> ResourceChange {
            ResourceChange(
                address: wanted.address, provider: wanted.provider, cloud: wanted.cloud, type: wanted.type, action: action,
                reason: reason, drift: drift, before: before, after: wanted, recorded: recorded, warnings: (refreshed ?? nil)?.warnings ?? []
            )
        }
        // Without a refresh the state stands for the cloud.
        let current: JSONValue? = switch refreshed {
        case .some(let live): live.map { FieldDiff.projected($0.attributes, onto: FieldDiff.union(wanted.body, recorded?.attributes)) }
        case .none: recorded?.attributes
        }
        guard let current else {
            if recorded != nil { return make(.create, "deleted outside mcloud; creating it again", drift: ["deleted outside mcloud"], before: nil) }
            return make(.create, "not yet created", before: nil)
        }
        guard let recorded else {
            return make(.update, "exists in the cloud but not in the state (an interrupted apply); taking it over", before: current)
        }
        // Without a refresh the current view is the state itself, so nothing can have drifted.
        let drift = refreshed == nil ? [] : FieldDiff.changes(from: recorded.attributes, to: current).map { "\($0.path) changed outside mcloud" }
        let immutable = replacementReasons(wanted, current)
        if !immutable.isEmpty { return make(.replace, immutable.joined(separator: "; "), drift: drift, before: current) }
        if FieldDiff.same(current, wanted.body) { return make(.noOp, "up to date", before: current) }
        let manifestsChanged = !FieldDiff.same(recorded.attributes, SecretRedaction.redact(wanted.body))
        let reason = manifestsChanged ? "changed in the manifests" : "changed outside mcloud; restoring the manifests' values"
        return make(.update, reason, drift: drift, before: current)
    }

    private static func removal(_ address: ResourceAddress, recorded: ResourceState?, live refreshed: ObservedResource??) -> ResourceChange? {
        switch (recorded, refreshed) {
        case (let recorded?, .some(nil)):
            return ResourceChange(
                address: address, provider: recorded.provider, cloud: recorded.cloud, type: type(of: address, recorded),
                action: .delete, reason: "no longer in the manifests, and already deleted outside mcloud; forgetting it",
                drift: ["deleted outside mcloud"], before: nil, after: nil, recorded: recorded
            )
        case (let recorded?, _):
            return ResourceChange(
                address: address, provider: recorded.provider, cloud: recorded.cloud, type: type(of: address, recorded),
                action: .delete, reason: "no longer in the manifests", before: refreshedAttributes(refreshed) ?? recorded.attributes,
                after: nil, recorded: recorded
            )
        case (nil, .some(let live?)):
            let orphan = Orphan(address: address, live: live)
            return ResourceChange(
                address: address, provider: address.provider, cloud: address.cloud, type: orphan.type, action: .delete,
                reason: "carries mcloud's labels but is in neither the state nor the manifests (left by an interrupted apply)",
                before: live.attributes, after: nil, recorded: orphan.state
            )
        case (nil, _):
            return nil
        }
    }

    private static func refreshedAttributes(_ refreshed: ObservedResource??) -> JSONValue? {
        guard case .some(let live?) = refreshed else { return nil }
        return live.attributes
    }

    private static func type(of address: ResourceAddress, _ recorded: ResourceState) -> ResourceKind {
        recorded.attributes["kind"]?.stringValue.map { ResourceKind($0) } ?? address.kind
    }
}
