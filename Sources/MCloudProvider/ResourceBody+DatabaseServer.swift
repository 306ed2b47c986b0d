public import MCloudCore

/// The typed fields of a `DatabaseServer` body (docs/gitops.md) that more than one module reads or writes: its role,
/// replication source, VM image, backup job and recovery point. This file is the one place their JSON paths are
/// spelled: rendering writes them, the providers and the engine read them, through the accessors below.
extension ResourceBody {
    /// `spec.role`.
    public enum DatabaseRole: String, Sendable {
        case primary, standby
        /// A restore drill's scratch server.
        case drill
    }

    /// The spec keys, in the order rendering writes them.
    enum DatabaseServerKey {
        static let role = "role"
        static let image = "image"
        static let replicaOf = "replicaOf"
        static let backup = "backup"
        static let restore = "restore"
        static let access = "access"
    }

    public var databaseRole: DatabaseRole? { string(DatabaseServerKey.role).flatMap(DatabaseRole.init(rawValue:)) }

    /// `spec.replicaOf`: the primary a standby follows.
    public var replicaOf: ResourceAddress? { string(DatabaseServerKey.replicaOf).map(ResourceAddress.init) }

    /// `spec.image`; nil in bodies rendered before it was there.
    public var image: VMImage? {
        guard let family = string(DatabaseServerKey.image, "family") else { return nil }
        let properties = spec.value(at: [DatabaseServerKey.image, "properties"])?.objectPairs.compactMap { key, value in value.stringValue.map { (key, $0) } } ?? []
        return VMImage(
            family: family, id: string(DatabaseServerKey.image, "id"), name: string(DatabaseServerKey.image, "name"),
            owner: string(DatabaseServerKey.image, "owner"), properties: Dictionary(properties, uniquingKeysWith: { first, _ in first })
        )
    }

    /// `spec.backup`: the backup job and, with a DR leg, its bucket; nil without a schedule.
    public var backup: BackupSettings? {
        guard let schedule = string(DatabaseServerKey.backup, "schedule") else { return nil }
        return BackupSettings(
            schedule: schedule, retentionDays: int(DatabaseServerKey.backup, "retentionDays") ?? 7,
            location: spec[DatabaseServerKey.backup].flatMap(Self.location(in:))
        )
    }

    /// `spec.restore`: the backup a server loads once as it is made (a failover's or a drill's recovery point); a
    /// creation-time instruction, which the state does not keep.
    public var restore: RecoveryPoint? {
        guard let fields = spec[DatabaseServerKey.restore], let location = Self.location(in: fields), let object = fields["object"]?.stringValue else { return nil }
        return RecoveryPoint(
            location: location, object: object, takenAt: fields["takenAt"]?.stringValue ?? "", targetTime: fields["targetTime"]?.stringValue,
            drill: fields["drill"] == .bool(true)
        )
    }

    /// `spec.access`: the server's names and the users of its dependent services; nil in bodies rendered before it,
    /// and for a server no service depends on.
    public var databaseAccess: DatabaseAccess? {
        guard let fields = spec[DatabaseServerKey.access], let cell = fields["cell"]?.stringValue else { return nil }
        let names = fields["names"]?.arrayItems.compactMap(\.stringValue) ?? []
        let clients = (fields["clients"]?.arrayItems ?? []).compactMap { client -> DatabaseAccess.Client? in
            guard let service = client["service"]?.stringValue, let user = client["user"]?.stringValue, let database = client["database"]?.stringValue else { return nil }
            return DatabaseAccess.Client(service: service, user: user, database: database, cidrs: client["cidrs"]?.arrayItems.compactMap(\.stringValue) ?? [])
        }
        return DatabaseAccess(cell: cell, names: names, clients: clients)
    }

    /// Why a running server must be made again to become `self`: its clients' users and its certificate (`spec.access`)
    /// and its part in replication (`spec.replication`) live in its user data, which a cloud sets only when it makes
    /// the server, so a change there (a new dependent, another standby) would otherwise be planned and never
    /// delivered. The server is made again on its volume, whose data its new user data finds and keeps.
    public func userDataChanges(from current: ResourceBody) -> [String] {
        [(DatabaseServerKey.access, "its clients' users and its certificate"), (Self.replicationKey, "its replication roles")].compactMap { field, what in
            FieldDiff.same(spec[field] ?? .null, current.spec[field] ?? .null) ? nil : "spec.\(field) changed: \(what) live in the server's user data, which cannot change"
        }
    }

    /// The body with `point` as its `spec.restore`, or without one.
    public func restoring(_ point: RecoveryPoint?) -> ResourceBody {
        settingSpec([DatabaseServerKey.restore], point.map(Self.json))
    }

    /// Whether two bodies ask for the same backup job: the spec's JSON compared as values, so key order and `1`
    /// against `1.0` do not matter.
    public func sameBackup(as other: ResourceBody) -> Bool {
        FieldDiff.same(spec[DatabaseServerKey.backup] ?? .null, other.spec[DatabaseServerKey.backup] ?? .null)
    }

    /// `spec.backup`'s path, for diffs that compare it as a whole.
    public static let backupPath = ["spec", DatabaseServerKey.backup]

    // MARK: Writing

    /// The spec fields rendering writes, each as its key and JSON value, in the body's order.
    public enum DatabaseServerField {
        public static func role(_ role: DatabaseRole) -> (key: String, value: JSONValue) {
            (DatabaseServerKey.role, .string(role.rawValue))
        }

        public static func image(_ image: VMImage) -> (key: String, value: JSONValue) {
            var fields: [(String, JSONValue)] = [("family", .string(image.family))]
            if let id = image.id { fields.append(("id", .string(id))) }
            if let name = image.name { fields.append(("name", .string(name))) }
            if let owner = image.owner { fields.append(("owner", .string(owner))) }
            if !image.properties.isEmpty {
                fields.append(("properties", .object(image.properties.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
            }
            return (DatabaseServerKey.image, .object(fields))
        }

        public static func replicaOf(_ primary: ResourceAddress) -> (key: String, value: JSONValue) {
            (DatabaseServerKey.replicaOf, .string(primary.rawValue))
        }

        public static func backup(_ backup: BackupSettings) -> (key: String, value: JSONValue) {
            let fields: [(String, JSONValue)] = [("schedule", .string(backup.schedule)), ("retentionDays", .int(backup.retentionDays))]
            return (DatabaseServerKey.backup, .object(fields + (backup.location.map(ResourceBody.locationFields) ?? [])))
        }

        public static func access(_ access: DatabaseAccess) -> (key: String, value: JSONValue) {
            let clients = access.clients.map { client -> JSONValue in
                .object([
                    ("service", .string(client.service)), ("user", .string(client.user)), ("database", .string(client.database)),
                    ("cidrs", .array(client.cidrs.map(JSONValue.string))),
                ])
            }
            return (
                DatabaseServerKey.access,
                .object([("cell", .string(access.cell)), ("names", .array(access.names.map(JSONValue.string))), ("clients", .array(clients))])
            )
        }
    }

    // MARK: JSON of the shared values

    private static func json(_ point: RecoveryPoint) -> JSONValue {
        var fields = locationFields(point.location) + [("object", .string(point.object)), ("takenAt", .string(point.takenAt))]
        if let time = point.targetTime { fields.append(("targetTime", .string(time))) }
        if point.drill { fields.append(("drill", .bool(true))) }
        return .object(fields)
    }

    fileprivate static func locationFields(_ location: BucketLocation) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("cloud", .string(location.cloud)), ("bucket", .string(location.bucket)), ("region", .string(location.region))]
        if let endpoint = location.endpoint { fields.append(("endpoint", .string(endpoint))) }
        if let profile = location.profile { fields.append(("profile", .string(profile))) }
        if let identity = location.identity {
            var scoped: [(String, JSONValue)] = [("address", .string(identity.address)), ("user", .string(identity.user))]
            if let profile = identity.deployProfile { scoped.append(("deployProfile", .string(profile))) }
            fields.append(("identity", .object(scoped)))
        }
        return fields
    }

    /// The bucket fields of `spec.backup` or `spec.restore`; nil without a bucket. A body rendered without a region
    /// means AWS's first.
    private static func location(in fields: JSONValue) -> BucketLocation? {
        guard let bucket = fields["bucket"]?.stringValue else { return nil }
        let region = fields["region"]?.stringValue ?? ""
        return BucketLocation(
            cloud: fields["cloud"]?.stringValue ?? "", bucket: bucket, region: region.isEmpty ? "us-east-1" : region,
            endpoint: fields["endpoint"]?.stringValue, profile: fields["profile"]?.stringValue, identity: fields["identity"].flatMap(identity(in:))
        )
    }

    private static func identity(in fields: JSONValue) -> BucketIdentity? {
        guard let address = fields["address"]?.stringValue, let user = fields["user"]?.stringValue else { return nil }
        return BucketIdentity(address: address, user: user, deployProfile: fields["deployProfile"]?.stringValue)
    }
}
