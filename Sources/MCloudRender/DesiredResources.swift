import MCloudCore
public import MCloudProvider

/// Turns a rendering into the resources apply works with, each with its address and what it needs first: a
/// namespace before its objects, a database before the ConfigMap that holds its host name, and any resource before
/// one whose declaration names its address (a server's volume and security group, a CDN's origin ingresses, a
/// bucket's source database). Rendering infers these because it knows what it rendered: the engine only follows
/// the edges.
public enum DesiredResources {
    public static func from(_ rendering: Rendering) -> [DesiredResource] {
        var resources: [DesiredResource] = []
        for (cloud, objects) in rendering.clusters {
            for object in objects {
                resources.append(DesiredResource(
                    address: ResourceAddress(object.address(cloud: cloud)), provider: .kubernetes, cloud: cloud, type: ResourceKind(object.kind),
                    body: object.body.json, dependencies: []
                ))
            }
        }
        for (_, infrastructure) in rendering.infrastructure {
            for resource in infrastructure {
                resources.append(DesiredResource(
                    address: ResourceAddress(resource.address), provider: ProviderName(resource.provider), cloud: resource.cloud,
                    type: ResourceKind(resource.kind),
                    body: resource.body.json, dependencies: []
                ))
            }
        }
        return withDependencies(resources)
    }

    /// Fills in `dependencies` from the bodies, sorted, never naming the resource itself; the list is sorted by address.
    static func withDependencies(_ resources: [DesiredResource]) -> [DesiredResource] {
        let addresses = Set(resources.map(\.address))
        var byHostName: [String: ResourceAddress] = [:]
        for resource in resources where resource.provider != .kubernetes {
            if let host = resource.body.value(at: ["spec", "dnsName"])?.stringValue { byHostName[host] = resource.address }
        }
        return resources.map { resource in
            var needed = Set<ResourceAddress>()
            if resource.provider == .kubernetes, resource.type != .namespace,
                let namespace = resource.body.value(at: ["metadata", "namespace"])?.stringValue
            {
                let namespaceAddress = ResourceAddress.kubernetes(cloud: resource.cloud, apiVersion: "v1", kind: .namespace, namespace: "", name: namespace)
                if addresses.contains(namespaceAddress) { needed.insert(namespaceAddress) }
            }
            for text in strings(in: resource.body) {
                if addresses.contains(ResourceAddress(text)) { needed.insert(ResourceAddress(text)) }
                if resource.provider == .kubernetes, let database = byHostName[text] { needed.insert(database) }
            }
            needed.remove(resource.address)
            var resolved = resource
            resolved.dependencies = needed.sorted()
            return resolved
        }.sorted { $0.address < $1.address }
    }

    private static func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): return [text]
        case .array(let items): return items.flatMap(strings)
        case .object(let pairs): return pairs.flatMap { strings(in: $0.1) }
        default: return []
        }
    }
}
