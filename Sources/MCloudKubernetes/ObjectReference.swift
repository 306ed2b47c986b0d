public import MCloudCore

/// Which object: its type, namespace (empty for cluster-scoped kinds) and name.
public struct ObjectReference: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var apiVersion: String
    public var kind: String
    public var namespace: String
    public var name: String

    public init(apiVersion: String, kind: String, namespace: String = "", name: String) {
        self.apiVersion = apiVersion
        self.kind = kind
        self.namespace = namespace
        self.name = name
    }

    public var description: String { namespace.isEmpty ? "\(kind) \(name)" : "\(kind) \(namespace)/\(name)" }

    public static func < (lhs: ObjectReference, rhs: ObjectReference) -> Bool {
        (lhs.apiVersion, lhs.kind, lhs.namespace, lhs.name) < (rhs.apiVersion, rhs.kind, rhs.namespace, rhs.name)
    }

    /// The reference of an object as the API returns it or as it is to be applied.
    public init?(object: JSONValue) {
        guard let apiVersion = object["apiVersion"]?.stringValue, let kind = object["kind"]?.stringValue,
              let name = object.value(at: ["metadata", "name"])?.stringValue else { return nil }
        self.init(apiVersion: apiVersion, kind: kind, namespace: object.value(at: ["metadata", "namespace"])?.stringValue ?? "", name: name)
    }
}

/// Where a kind lives in the API: its plural resource name and whether it is namespaced.
public struct ResourceInfo: Hashable, Sendable {
    public var apiVersion: String
    public var kind: String
    public var resource: String
    public var namespaced: Bool

    /// The collection path, such as `/apis/apps/v1/namespaces/web/deployments`.
    public func collectionPath(namespace: String?) -> String {
        let root = apiVersion.contains("/") ? "/apis/\(apiVersion)" : "/api/\(apiVersion)"
        if namespaced, let namespace, !namespace.isEmpty { return "\(root)/namespaces/\(namespace)/\(resource)" }
        return "\(root)/\(resource)"
    }
}
