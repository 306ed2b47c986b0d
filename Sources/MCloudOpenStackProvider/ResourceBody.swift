import MCloudCore

/// The parts of an infrastructure document (docs/gitops.md) the provider works with: which resource it is, who
/// owns it, and its spec. Observed resources are written back in the same shape, so the engine compares them field
/// by field with the manifests.
struct ResourceBody: Sendable {
    static let apiVersion = "infrastructure.mcloud.io/v1"

    var document: JSONValue

    init(_ document: JSONValue) {
        self.document = document
    }

    var kind: String { document["kind"]?.stringValue ?? "" }
    var name: String { document.value(at: ["metadata", "name"])?.stringValue ?? "" }
    var address: String { document.value(at: ["metadata", "address"])?.stringValue ?? "" }
    var application: String { document.value(at: ["metadata", "labels", "app.kubernetes.io/part-of"])?.stringValue ?? "" }
    var cell: String { document.value(at: ["metadata", "labels", "mcloud.io/cell"])?.stringValue ?? name }
    var spec: JSONValue { document["spec"] ?? .object([]) }

    func string(_ path: String...) -> String? { spec.value(at: path)?.stringValue }
    func int(_ path: String...) -> Int? { spec.value(at: path).flatMap { $0.intValue ?? $0.doubleValue.map { Int($0) } } }
    func double(_ path: String...) -> Double? { spec.value(at: path)?.doubleValue }

    /// The document with `value` at `path` under `spec`, objects created on the way; nil removes the field.
    func settingSpec(_ path: [String], _ value: JSONValue?) -> ResourceBody {
        ResourceBody(Self.setting(document, ["spec"] + path, value))
    }

    private static func setting(_ node: JSONValue, _ path: [String], _ value: JSONValue?) -> JSONValue {
        guard let key = path.first else { return value ?? .null }
        var pairs = node.objectPairs
        let child = pairs.first { $0.0 == key }?.1 ?? .object([])
        if path.count == 1, value == nil {
            pairs.removeAll { $0.0 == key }
            return .object(pairs)
        }
        let updated = setting(child, Array(path.dropFirst()), value)
        if let index = pairs.firstIndex(where: { $0.0 == key }) {
            pairs[index].1 = updated
        } else {
            pairs.append((key, updated))
        }
        return .object(pairs)
    }

    /// A document for a resource found in the cloud that neither the manifests nor the state name: enough for the
    /// engine to show and delete it.
    static func orphan(kind: String, address: String, name: String, cloud: String) -> ResourceBody {
        ResourceBody(.object([
            ("apiVersion", .string(apiVersion)), ("kind", .string(kind)),
            ("metadata", .object([("name", .string(name)), ("address", .string(address)), ("cloud", .string(cloud)), ("provider", .string("openstack"))])),
            ("spec", .object([])),
        ]))
    }
}
