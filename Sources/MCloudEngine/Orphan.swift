import MCloudProvider
import MCloudCore

/// A resource found in a cloud that neither the state nor the manifests name: enough of a state record to delete it.
struct Orphan {
    let address: String
    let live: ObservedResource

    /// `provider.cloud.…`: the address names both.
    var provider: String { String(address.split(separator: ".").first ?? "") }
    var cloud: String { address.split(separator: ".").dropFirst().first.map(String.init) ?? "" }
    var type: String { live.attributes["kind"]?.stringValue ?? Self.kind(of: address) }

    var state: ResourceState {
        ResourceState(
            address: address, provider: provider, cloud: cloud, providerID: live.providerID,
            attributes: Dictionary(live.attributes.objectPairs, uniquingKeysWith: { first, _ in first })
        )
    }

    /// The kind part of an address: the segment after the API version for Kubernetes, the third otherwise.
    static func kind(of address: String) -> String {
        let parts = address.split(separator: ".").map(String.init)
        if parts.first == "kubernetes" {
            return parts.first { $0.first?.isUppercase == true } ?? ""
        }
        return parts.count > 2 ? parts[2] : ""
    }
}
