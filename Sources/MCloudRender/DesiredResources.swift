import MCloudCore
public import MCloudProvider

/// Turns a rendering into the resources apply works with, each with its address and what it needs first: a
/// namespace before its objects, and any resource before one whose declaration names its address (a server's volume
/// and security group, a CDN's origin ingresses, a bucket's source database, the database server or Ingresses whose
/// addresses an EndpointSlice is to hold, the connection Secrets a Deployment reads). The connection Secrets are
/// among them with their edge and no value (`ConnectionSecret.appliedObject`). Rendering infers these because it knows what it rendered: the engine only follows
/// the edges.
public enum DesiredResources {
    public static func from(_ rendering: Rendering) -> [DesiredResource] {
        // Bodies become JSON on every core: a plan of 10,000 objects converts them all.
        let objects = rendering.clusters.flatMap { cluster in cluster.objects.map { (cloud: cluster.cloud, object: $0) } }
            + rendering.secrets.map { (cloud: $0.cloud, object: $0.appliedObject) }
        var resources = Parallel.map(objects.count) { range in
            objects[range].map { cloud, object in
                DesiredResource(
                    address: ResourceAddress(object.address(cloud: cloud)), provider: .kubernetes, cloud: cloud, type: ResourceKind(object.kind),
                    body: object.body.json, dependencies: []
                )
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
    /// Resources are scanned on every core, each on its own.
    static func withDependencies(_ resources: [DesiredResource]) -> [DesiredResource] {
        let addresses = Set(resources.map(\.address))
        // A string of a length no address has is no address: most strings of a body (names, labels, images) are
        // passed over without hashing them.
        let addressLengths = addresses.reduce(into: [Bool](repeating: false, count: (addresses.map(\.rawValue.utf8.count).max() ?? 0) + 1)) {
            $0[$1.rawValue.utf8.count] = true
        }
        let resolved = Parallel.map(resources.count) { range in
            resources[range].map { resource in
                var needed = Set<ResourceAddress>()
                if resource.provider == .kubernetes, resource.type != .namespace,
                    let namespace = resource.body.value(at: ["metadata", "namespace"])?.stringValue
                {
                    let namespaceAddress = ResourceAddress.kubernetes(cloud: resource.cloud, apiVersion: "v1", kind: .namespace, namespace: "", name: namespace)
                    if addresses.contains(namespaceAddress) { needed.insert(namespaceAddress) }
                }
                forEachString(in: resource.body) { text in
                    let length = text.utf8.count
                    if length < addressLengths.count, addressLengths[length], addresses.contains(ResourceAddress(text)) { needed.insert(ResourceAddress(text)) }
                }
                // Only a Deployment's pod template reads Secrets: no second walk of every other body on a large plan.
                if resource.type == .deployment, let namespace = resource.body.value(at: ["metadata", "namespace"])?.stringValue,
                    let template = resource.body.value(at: ["spec", "template"])
                {
                    forEachSecretName(in: template) { name in
                        let secret = ResourceAddress.kubernetes(cloud: resource.cloud, apiVersion: "v1", kind: .secret, namespace: namespace, name: name)
                        if addresses.contains(secret) { needed.insert(secret) }
                    }
                }
                // A slice or policy reaching several clusters' Ingresses names them in one annotation, which no address equals.
                if ResourceBody.addressFilledKinds.contains(resource.type) {
                    needed.formUnion(ResourceBody(resource.body).endpointSources.filter(addresses.contains))
                }
                needed.remove(resource.address)
                var resolved = resource
                resolved.dependencies = needed.sorted()
                return resolved
            }
        }
        return resolved.sorted { $0.address < $1.address }
    }

    /// Calls `body` with the name of every Secret a pod template reads: `secretKeyRef.name`, a volume's
    /// `secret.secretName`.
    private static func forEachSecretName(in value: JSONValue, _ body: (String) -> Void) {
        switch value {
        case .array(let items): for item in items { forEachSecretName(in: item, body) }
        case .object(let pairs):
            for (key, item) in pairs {
                if key == "secretKeyRef", let name = item["name"]?.stringValue { body(name) }
                if key == "secret", let name = item["secretName"]?.stringValue { body(name) }
                forEachSecretName(in: item, body)
            }
        default: break
        }
    }

    /// Calls `body` with every string in `value`, at any depth, without gathering them in arrays first.
    private static func forEachString(in value: JSONValue, _ body: (String) -> Void) {
        switch value {
        case .string(let text): body(text)
        case .array(let items): for item in items { forEachString(in: item, body) }
        case .object(let pairs): for (_, item) in pairs { forEachString(in: item, body) }
        default: break
        }
    }
}
