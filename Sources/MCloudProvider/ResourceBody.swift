public import MCloudCore

/// Reads and writes a resource body: the declaration a provider applies, a Kubernetes object or an infrastructure
/// document of docs/gitops.md (`apiVersion`, `kind`, `metadata` with `name`, `address`, `cloud`, `provider` and
/// `labels`, then `spec`). Providers report what they find in the same shape, so the engine compares it field by
/// field with what is desired.
public struct ResourceBody: Sendable, Hashable {
    /// The `apiVersion` of every infrastructure document.
    public static let infrastructureAPIVersion = "infrastructure.mcloud.io/v1"

    public var document: JSONValue

    public init(_ document: JSONValue) {
        self.document = document
    }

    public var kind: ResourceKind { ResourceKind(document["kind"]?.stringValue ?? "") }
    /// `metadata.name`, empty when the body has none.
    public var name: String { metadata("name") ?? "" }
    public var namespace: String? { metadata("namespace") }
    /// `metadata.address` of an infrastructure document, empty when the body has none.
    public var address: ResourceAddress { ResourceAddress(metadata("address") ?? "") }
    public func label(_ key: String) -> String? { document.value(at: ["metadata", "labels", key])?.stringValue }
    /// The application (`app.kubernetes.io/part-of`), empty when the body has none.
    public var application: String { label(ResourceLabels.partOf) ?? "" }
    /// The cell it was rendered for, when it was rendered for one.
    public var cell: String? { label(ResourceLabels.cell) }
    /// The cell as plan names it, `accounts-db@ru`; the label carries it as `accounts-db.ru`.
    public var cellName: String? {
        cell.map { label in
            guard !label.contains("@"), let dot = label.lastIndex(of: ".") else { return label }
            return label[..<dot] + "@" + label[label.index(after: dot)...]
        }
    }
    public var spec: JSONValue { document["spec"] ?? .object([]) }

    private func metadata(_ key: String) -> String? { document.value(at: ["metadata", key])?.stringValue }

    /// A field under `spec`.
    public func string(_ path: String...) -> String? { spec.value(at: path)?.stringValue }
    public func int(_ path: String...) -> Int? { spec.value(at: path).flatMap { $0.intValue ?? $0.doubleValue.map { Int($0) } } }
    public func double(_ path: String...) -> Double? { spec.value(at: path)?.doubleValue }

    /// The body with `value` at `path` under `spec`; nil removes the field.
    public func settingSpec(_ path: [String], _ value: JSONValue?) -> ResourceBody {
        ResourceBody(Self.setting(["spec"] + path, to: value, in: document))
    }

    /// `node` with `value` at `path`, objects created on the way (a field that is not an object becomes one);
    /// nil removes the field.
    public static func setting(_ path: [String], to value: JSONValue?, in node: JSONValue) -> JSONValue {
        guard let key = path.first else { return value ?? .null }
        var pairs = node.objectPairs
        if path.count == 1, value == nil {
            pairs.removeAll { $0.0 == key }
            return .object(pairs)
        }
        let child = pairs.first { $0.0 == key }?.1 ?? .object([])
        let updated = setting(Array(path.dropFirst()), to: value, in: child)
        if let index = pairs.firstIndex(where: { $0.0 == key }) {
            pairs[index].1 = updated
        } else {
            pairs.append((key, updated))
        }
        return .object(pairs)
    }

    /// The smallest infrastructure document for `address`: what a provider reports for a resource no body
    /// describes (found in the cloud, or read back without a known body), enough to show and delete it.
    /// With `cloud`, the metadata also names the cloud and the address's provider.
    public static func infrastructure(
        kind: ResourceKind, address: ResourceAddress, name: String? = nil, cloud: String? = nil, spec: JSONValue? = nil
    ) -> ResourceBody {
        var metadata: [(String, JSONValue)] = []
        if let name { metadata.append(("name", .string(name))) }
        metadata.append(("address", .string(address.rawValue)))
        if let cloud { metadata += [("cloud", .string(cloud)), ("provider", .string(address.provider.rawValue))] }
        var document: [(String, JSONValue)] = [
            ("apiVersion", .string(infrastructureAPIVersion)), ("kind", .string(kind.rawValue)), ("metadata", .object(metadata)),
        ]
        if let spec { document.append(("spec", spec)) }
        return ResourceBody(.object(document))
    }

    /// The body as digests see it: keys sorted at every depth and whole numbers written alike, so bodies the engine
    /// compares equal (key order and `1` against `1.0` do not matter to it) serialize to the same bytes.
    public var canonicalText: String { Self.canonical(document).serialized(pretty: false) }

    private static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let pairs): return .object(pairs.sorted { $0.0 < $1.0 }.map { ($0.0, canonical($0.1)) })
        case .array(let items): return .array(items.map(canonical))
        case .number(let number) where number.rounded() == number && abs(number) < 1e15: return .int(Int(number))
        default: return value
        }
    }
}
