public import MCloudCore

/// `spec.replication` of a `DatabaseServer` body (docs/gitops.md): on the primary `{ standbys: [...], cidrs: [...] }`,
/// on a standby `{ name, primary, port, cidrs }`. Beside `ResourceBody+DatabaseServer`, whose other fields it follows.
extension ResourceBody {
    static let replicationKey = "replication"

    /// `spec.replication`; nil for a server of a cell without standbys, and in bodies rendered before it. A standby's
    /// body rendered before it had `cidrs` reads as the private ranges, which rendering has always given the primary.
    public var replication: DatabaseReplication? {
        guard let fields = spec[Self.replicationKey] else { return nil }
        let cidrs = fields["cidrs"]?.arrayItems.compactMap(\.stringValue)
        if let name = fields["name"]?.stringValue, let primary = fields["primary"]?.stringValue, let port = fields["port"]?.intValue {
            return .standby(name: name, primary: primary, port: port, cidrs: cidrs ?? DatabaseReplication.privateRanges)
        }
        guard let standbys = fields["standbys"]?.arrayItems.compactMap(\.stringValue) else { return nil }
        return .primary(standbys: standbys, cidrs: cidrs ?? [])
    }
}

extension ResourceBody.DatabaseServerField {
    public static func replication(_ replication: DatabaseReplication) -> (key: String, value: JSONValue) {
        let cidrs = ("cidrs", JSONValue.array(replication.cidrs.map(JSONValue.string)))
        return switch replication {
        case .primary(let standbys, _):
            (ResourceBody.replicationKey, .object([("standbys", .array(standbys.map(JSONValue.string))), cidrs]))
        case .standby(let name, let primary, let port, _):
            (ResourceBody.replicationKey, .object([("name", .string(name)), ("primary", .string(primary)), ("port", .int(port)), cidrs]))
        }
    }
}
