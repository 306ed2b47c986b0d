public import MCloudProvider

/// `--target`: limits a plan to the resources whose address starts with one of the given prefixes, and what they
/// depend on, as Terraform's -target does. Resources outside it are neither changed nor deleted.
public struct TargetSelection: Sendable {
    public let prefixes: [String]

    public init(_ prefixes: [String]) {
        self.prefixes = prefixes
    }

    public var isEverything: Bool { prefixes.isEmpty }

    public func matches(_ address: ResourceAddress) -> Bool {
        isEverything || prefixes.contains { address.hasPrefix($0) }
    }

    /// The targeted desired resources with everything they need, and the state cut down to the targeted records.
    public func select(desired: [DesiredResource], state: State) -> (desired: [DesiredResource], state: State) {
        guard !isEverything else { return (desired, state) }
        let byAddress = Dictionary(desired.map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
        var chosen = Set<ResourceAddress>()
        var pending = desired.map(\.address).filter(matches)
        while let next = pending.popLast() {
            guard chosen.insert(next).inserted else { continue }
            pending += byAddress[next]?.dependencies ?? []
        }
        let records = state.resources.filter { chosen.contains($0.address) || matches($0.address) }
        var selected = State(lineage: state.lineage, serial: state.serial, resources: records)
        selected.application = state.application
        selected.lost = state.lost
        selected.retained = state.retained
        selected.primaries = state.primaries
        return (desired.filter { chosen.contains($0.address) }, selected)
    }
}
