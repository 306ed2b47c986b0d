import MCloudProvider

/// One Kubernetes object: its identity, the file it is written to, and its content.
public struct KubernetesObject: Sendable {
    public let apiVersion: String
    public let kind: String
    /// The namespace of a namespaced object; for a Namespace, its own name (it is filed in its own folder).
    public let namespace: String
    public let name: String
    public let body: ObjectNode

    /// `content` follows `apiVersion`, `kind` and `metadata`, in the order given.
    init(
        _ apiVersion: String, _ kind: String, name: String, namespace: String, labels: ObjectNode, annotations: ObjectNode? = nil,
        content: [(String, ObjectNode)]
    ) {
        self.apiVersion = apiVersion
        self.kind = kind
        self.namespace = namespace
        self.name = name
        var metadata: [(String, ObjectNode)] = [("name", .string(name))]
        if kind != "Namespace" { metadata.append(("namespace", .string(namespace))) }
        metadata.append(("labels", labels))
        if let annotations { metadata.append(("annotations", annotations)) }
        body = .map([("apiVersion", .string(apiVersion)), ("kind", .string(kind)), ("metadata", .map(metadata))] + content)
    }

    private init(apiVersion: String, kind: String, namespace: String, name: String, body: ObjectNode) {
        self.apiVersion = apiVersion
        self.kind = kind
        self.namespace = namespace
        self.name = name
        self.body = body
    }

    /// The same object with another body, as `Rendering.filling` gives an EndpointSlice its recorded addresses.
    func with(body: ObjectNode) -> KubernetesObject {
        KubernetesObject(apiVersion: apiVersion, kind: kind, namespace: namespace, name: name, body: body)
    }

    /// docs/cli.md's resource address: `kubernetes.vk-msk.apps/v1.Deployment.retail-bank-ru.payments-api`.
    public func address(cloud: String) -> String {
        Self.address(cloud: cloud, apiVersion, kind, namespace: namespace, name: name)
    }

    static func address(cloud: String, _ apiVersion: String, _ kind: String, namespace: String, name: String) -> String {
        ResourceAddress.kubernetes(cloud: cloud, apiVersion: apiVersion, kind: ResourceKind(kind), namespace: namespace, name: name).rawValue
    }

    /// The path under the cluster's folder: `retail-bank-ru/web.deployment.yaml`, `retail-bank-ru/namespace.yaml`.
    public var path: String {
        kind == "Namespace" ? "\(name)/namespace.yaml" : "\(namespace)/\(name).\(kind.lowercased()).yaml"
    }
}
