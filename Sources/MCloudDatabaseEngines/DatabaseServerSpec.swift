public import MCloudCore

/// The fields of a rendered `DatabaseServer` body (docs/gitops.md) that its user data depends on: engine, version,
/// port, the image family, the backup's schedule, retention and DR bucket, and the recovery point to load at boot.
/// Both IaaS providers read the body through this, so they pick the same recipe and write the same user data.
public struct DatabaseServerSpec: Sendable {
    /// `spec.restore`: a backup in another cloud's bucket that the server loads once, when it is made (a failover's
    /// or a drill's recovery point). A creation-time instruction: providers record the server without it.
    public struct Restore: Sendable, Hashable {
        public var cloud: String
        public var bucket: String
        public var region: String
        public var endpoint: String?
        public var profile: String?
        public var object: String

        public init(cloud: String, bucket: String, region: String, endpoint: String? = nil, profile: String? = nil, object: String) {
            self.cloud = cloud
            self.bucket = bucket
            self.region = region
            self.endpoint = endpoint
            self.profile = profile
            self.object = object
        }

        /// The body's `spec.restore`; nil without one, or without its bucket or object.
        public init?(_ body: JSONValue) {
            func text(_ name: String) -> String? { body.value(at: ["spec", "restore", name])?.stringValue }
            guard let bucket = text("bucket"), let object = text("object") else { return nil }
            self.init(cloud: text("cloud") ?? "", bucket: bucket, region: text("region") ?? "us-east-1", endpoint: text("endpoint"), profile: text("profile"), object: object)
        }
    }

    public var engine: String
    public var version: String
    public var port: Int?
    public var family: String
    /// `spec.image`; nil in bodies rendered before it was there.
    public var image: VMImage?
    public var schedule: String?
    public var retentionDays: Int?
    public var bucket: String?
    public var region: String?
    public var endpoint: String?
    public var restore: Restore?

    /// `body` is the whole document; `defaultFamily` is the provider's standard image family, for bodies rendered
    /// before they carried `spec.image`.
    public init(_ body: JSONValue, defaultFamily: String) {
        func text(_ path: String...) -> String? { body.value(at: ["spec"] + path)?.stringValue }
        func number(_ path: String...) -> Int? {
            let value = body.value(at: ["spec"] + path)
            return value?.intValue ?? value?.doubleValue.map { Int($0) }
        }
        engine = text("engine") ?? ""
        version = text("version") ?? ""
        port = number("port")
        family = text("image", "family") ?? defaultFamily
        image = text("image", "family").map { family in
            let properties = body.value(at: ["spec", "image", "properties"])?.objectPairs.compactMap { key, value in value.stringValue.map { (key, $0) } } ?? []
            return VMImage(
                family: family, id: text("image", "id"), name: text("image", "name"), owner: text("image", "owner"),
                properties: Dictionary(properties, uniquingKeysWith: { first, _ in first })
            )
        }
        schedule = text("backup", "schedule")
        retentionDays = number("backup", "retentionDays")
        bucket = text("backup", "bucket")
        region = text("backup", "region")
        endpoint = text("backup", "endpoint")
        restore = Restore(body)
    }

    /// The catalog's recipe, or why there is none (which the plan-time check should have caught).
    public func recipe() -> Result<Recipe, RecipeMissing> {
        guard let imageFamily = ImageFamily(rawValue: family) else {
            return .failure(RecipeMissing(message: "the engine catalog knows no image family \(family) (it has \(ImageFamily.allCases.map(\.rawValue).joined(separator: ", ")))"))
        }
        guard let recipe = EngineCatalog.recipe(engine: engine, version: version, family: imageFamily) else {
            let series = EngineCatalog.series(engine: engine, family: imageFamily)
            return .failure(RecipeMissing(
                message: "the engine catalog has no recipe for \(engine) \(version) on \(family) (it has \(series.isEmpty ? "none for \(engine)" : series.joined(separator: ", ")))"
            ))
        }
        return .success(recipe)
    }

    /// The VM to render, with the provider's facts: the address and server name, the disk names, the DR bucket's keys
    /// and those of the recovery point's bucket.
    public func vm(
        recipe: Recipe, address: String, server: String, disks: [String], secrets: [(name: String, value: String)],
        restoreSecrets: [(name: String, value: String)] = []
    ) -> DatabaseVM {
        var backup: DatabaseVM.Backup?
        if let schedule {
            let target = bucket.map { DatabaseVM.Bucket(name: $0, region: region ?? "us-east-1", endpoint: endpoint, secrets: secrets) }
            backup = DatabaseVM.Backup(schedule: schedule, retentionDays: retentionDays ?? 7, bucket: target)
        }
        let point = restore.map {
            DatabaseVM.RecoveryPoint(bucket: DatabaseVM.Bucket(name: $0.bucket, region: $0.region, endpoint: $0.endpoint, secrets: restoreSecrets), object: $0.object)
        }
        return DatabaseVM(
            address: address, server: server, recipe: recipe, port: port ?? recipe.engine.defaultPort, disks: disks, backup: backup, recoveryPoint: point
        )
    }

    public struct RecipeMissing: Error, Sendable {
        public var message: String
    }
}
