import MCloudProvider
import MCloudCore

/// A resource found in a cloud that neither the state nor the manifests name: enough of a state record to delete it.
struct Orphan {
    let address: ResourceAddress
    let live: ObservedResource

    var type: ResourceKind { live.attributes["kind"]?.stringValue.map { ResourceKind($0) } ?? address.kind }

    var state: ResourceState {
        ResourceState(
            address: address, provider: address.provider, cloud: address.cloud, providerID: live.providerID,
            attributes: Dictionary(live.attributes.objectPairs, uniquingKeysWith: { first, _ in first })
        )
    }
}
