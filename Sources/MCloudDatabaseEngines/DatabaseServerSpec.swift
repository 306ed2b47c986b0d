public import MCloudCore
public import MCloudSecrets

/// What a database VM's user data depends on, as a rendered `DatabaseServer` body says it (docs/gitops.md): engine,
/// version, port, the image family, the backup job with its DR bucket, and the recovery point to load at boot. Both
/// IaaS providers build it from the body's typed fields, so they pick the same recipe and write the same user data.
public struct DatabaseServerSpec: Sendable {
    public var engine: String
    public var version: String
    public var port: Int?
    /// The recipe's image family: `image.family`, or the provider's standard one for bodies rendered before they
    /// carried an image.
    public var family: String
    public var image: VMImage?
    public var backup: BackupSettings?
    public var restore: RecoveryPoint?
    /// `spec.access`: the names and users the provider derives TLS and verifiers for.
    public var access: DatabaseAccess?
    /// `spec.replication`: the server's part in its cell's replication.
    public var replication: DatabaseReplication?

    public init(
        engine: String, version: String, port: Int?, image: VMImage?, defaultFamily: String, backup: BackupSettings?, restore: RecoveryPoint?,
        access: DatabaseAccess? = nil, replication: DatabaseReplication? = nil
    ) {
        self.access = access
        self.replication = replication
        self.engine = engine
        self.version = version
        self.port = port
        self.family = image?.family ?? defaultFamily
        self.image = image
        self.backup = backup
        self.restore = restore
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
        restoreSecrets: [(name: String, value: String)] = [], access: ServerAccess? = nil
    ) -> DatabaseVM {
        let vmBackup = backup.map { settings in
            DatabaseVM.Backup(
                schedule: settings.schedule, retentionDays: settings.retentionDays, bucket: settings.location.map { DatabaseVM.Bucket($0, secrets: secrets) }
            )
        }
        let point = restore.map {
            DatabaseVM.RecoveryPoint(bucket: DatabaseVM.Bucket($0.location, secrets: restoreSecrets), object: $0.object, targetTime: $0.targetTime, drill: $0.drill)
        }
        return DatabaseVM(
            address: address, server: server, recipe: recipe, port: port ?? recipe.engine.defaultPort, disks: disks, backup: vmBackup, recoveryPoint: point,
            access: access
        )
    }

    /// The server's `ServerAccess`, derived from the operator's age identity found through `environment`
    /// (`AgeKeyFile`); nil for a server without clients or standbys, or on an engine whose recipes make no users yet.
    /// A standby's is given `primaryAddress`, the provider's address of its primary.
    public func serverAccess(
        environment: [String: String], application: String, server: String, primaryAddress: String? = nil
    ) throws(SecretsError) -> ServerAccess? {
        guard ServerAccess.needsRoot(engine: engine, access: access, replication: replication), let access, let engine = Engine(named: engine) else { return nil }
        let root = SecretRoot(identity: try AgeKeyFile.load(environment: environment))
        var derived = try ServerAccess.derive(root: root, application: application, server: server, engine: engine, access: access, replication: replication)
        if let primaryAddress {
            guard !primaryAddress.isEmpty, primaryAddress.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }) else {
                throw .invalidInput(reason: "the primary's address \"\(primaryAddress)\" is not an IP address")
            }
            derived.replication?.primaryAddress = primaryAddress
        }
        return derived
    }

    /// Why the catalog's recipe cannot make this server: standbys on an engine whose recipe cannot replicate yet,
    /// which the plan-time check should have refused (`Recipe.replicates`).
    public func replicationProblem(_ recipe: Recipe) -> String? {
        guard replication != nil, !recipe.replicates else { return nil }
        return "standbys of \(recipe) do not replicate yet (mcloud makes none)"
    }

    public struct RecipeMissing: Error, Sendable {
        public var message: String
    }
}
