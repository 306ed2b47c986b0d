public import MCloudCore

/// `spec.replication` of a `DatabaseServer` body (docs/gitops.md): on the primary `{ standbys: [...], cidrs: [...] }`,
/// on a standby `{ name, primary, port }`. Beside `ResourceBody+DatabaseServer`, whose other fields it follows.
extension ResourceBody {
    static let replicationKey = "replication"

    /// `spec.replication`; nil for a server of a cell without standbys, and in bodies rendered before it.
    public var replication: DatabaseReplication? {
        guard let fields = spec[Self.replicationKey] else { return nil }
        if let name = fields["name"]?.stringValue, let primary = fields["primary"]?.stringValue, let port = fields["port"]?.intValue {
            return .standby(name: name, primary: primary, port: port)
        }
        guard let standbys = fields["standbys"]?.arrayItems.compactMap(\.stringValue) else { return nil }
        return .primary(standbys: standbys, cidrs: fields["cidrs"]?.arrayItems.compactMap(\.stringValue) ?? [])
    }
}

extension ResourceBody.DatabaseServerField {
    public static func replication(_ replication: DatabaseReplication) -> (key: String, value: JSONValue) {
        switch replication {
        case .primary(let standbys, let cidrs):
            (ResourceBody.replicationKey, .object([("standbys", .array(standbys.map(JSONValue.string))), ("cidrs", .array(cidrs.map(JSONValue.string)))]))
        case .standby(let name, let primary, let port):
            (ResourceBody.replicationKey, .object([("name", .string(name)), ("primary", .string(primary)), ("port", .int(port))]))
        }
    }
}
