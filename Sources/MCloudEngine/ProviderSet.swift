public import MCloudCore
public import MCloudProvider

/// The providers a plan or apply needs, one per provider name and cloud, resolved up front so that a resource no
/// provider can handle stops the plan with its address instead of being skipped.
public struct ProviderSet: Sendable {
    struct Key: Hashable, Comparable {
        var provider: ProviderName
        var cloud: String

        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.cloud, lhs.provider) < (rhs.cloud, rhs.provider) }
    }

    private let providers: [Key: any ResourceProvider]

    /// Resolves a provider for every (provider, cloud) among `needs`; fails listing every resource left without one.
    public init(
        needs: [(address: ResourceAddress, provider: ProviderName, cloud: String)], clouds: [String: Cloud], catalog: any ProviderCatalog
    ) throws(EngineError) {
        let grouped = Dictionary(grouping: needs) { Key(provider: $0.provider, cloud: $0.cloud) }
        var resolved: [Key: any ResourceProvider] = [:]
        var problems: [String] = []
        for key in grouped.keys.sorted() {
            // Only for a problem: sorting every address of a large plan costs more than the rest of this.
            func listed() -> String {
                let addresses = (grouped[key] ?? []).map(\.address.rawValue).sorted()
                return addresses.prefix(3).joined(separator: ", ") + (addresses.count > 3 ? " and \(addresses.count - 3) more" : "")
            }
            guard let cloud = clouds[key.cloud] else {
                problems.append("cloud \(key.cloud) is not in the catalog, so mcloud cannot reach \(listed())")
                continue
            }
            do throws(ProviderError) {
                resolved[key] = try catalog.provider(named: key.provider, for: cloud)
            } catch {
                problems.append("\(error.message); it is needed for \(listed())")
            }
        }
        guard problems.isEmpty else {
            throw EngineError("no provider can handle some resources:\n" + problems.map { "  - \($0)" }.joined(separator: "\n"))
        }
        providers = resolved
    }

    func provider(_ name: ProviderName, cloud: String) -> (any ResourceProvider)? {
        providers[Key(provider: name, cloud: cloud)]
    }

    /// Each provider with the clouds sorted, for a refresh that reads them all at once.
    var all: [any ResourceProvider] {
        providers.keys.sorted().compactMap { providers[$0] }
    }
}
