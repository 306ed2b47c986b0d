public import MCloudCore
public import MCloudOpenStack
public import MCloudProvider
public import MCloudAWS
public import MCloudHTTP

/// The engine's provider for one OpenStack cloud: Volume (Cinder), DatabaseServer (Nova), SecurityGroup (Neutron),
/// ManagedDatabase (Trove), BackupSchedule (on its database) and BackupBucket (the cloud's S3-compatible object
/// storage). What mcloud makes carries its ownership and engine address (metadata, tags, or the Trove instance's
/// name), so refresh finds it with one list per service and creates adopt what a lost answer left behind.
public struct OpenStackResourceProvider: ResourceProvider {
    public let name = ProviderName.openstack
    public let cloud: String
    let connection: OpenStackConnection
    private let poller: Poller
    private let storage: OnFirstUse<S3Client, AWSError>
    private let environment: [String: String]
    private let encryptedVolumeType: String?
    private let resolver: HostResolver

    /// `connect` opens the session on first use; `objectStorage` makes the S3 client on the first bucket operation;
    /// `environment` is where the operator's AWS files are found for the backup profile a database VM's backup job
    /// gets; `encryptedVolumeType` is the Cinder type of every volume made (the catalog's `spec.vm.encryptedVolumeType`);
    /// `resolver` turns a Trove instance's host name into addresses when Trove gives no address.
    public init(
        cloud: String, environment: [String: String], poller: Poller = .openStack(timeout: 900),
        connect: @escaping @Sendable () throws(OpenStackError) -> OpenStackSession, objectStorage: @escaping @Sendable () throws(AWSError) -> S3Client,
        encryptedVolumeType: String? = nil, resolver: HostResolver = .system
    ) {
        self.resolver = resolver
        self.encryptedVolumeType = encryptedVolumeType
        self.cloud = cloud
        self.environment = environment
        self.poller = poller
        connection = OpenStackConnection(poller: poller, connect: connect)
        storage = OnFirstUse(objectStorage)
    }

    private var volumes: VolumeKind { VolumeKind(cloud: cloud, connection: connection, encryptedVolumeType: encryptedVolumeType) }
    private var servers: DatabaseServerKind { DatabaseServerKind(cloud: cloud, connection: connection, environment: environment) }
    private var groups: SecurityGroupKind { SecurityGroupKind(cloud: cloud, connection: connection) }
    private var databases: ManagedDatabaseKind { ManagedDatabaseKind(cloud: cloud, connection: connection, resolver: resolver, access: TroveAccess(environment: environment)) }
    private var schedules: BackupScheduleKind { BackupScheduleKind(cloud: cloud, connection: connection, databases: databases) }
    var buckets: BackupBucketKind { BackupBucketKind(cloud: cloud, storage: storage, clock: poller.clock) }

    public func refresh(application: String, desired: [DesiredResource], recorded: [ResourceState]) async throws(ProviderError) -> [ObservedResource] {
        // What a field that cannot be read back should say: the state's value, else the manifests'.
        var bases: [ResourceAddress: ResourceBody] = [:]
        for resource in recorded { bases[resource.address] = ResourceBody(resource.attributes) }
        for resource in desired where bases[resource.address] == nil { bases[resource.address] = ResourceBody(resource.body) }
        let context = "refreshing OpenStack cloud \(cloud)"
        var observed: [ObservedResource] = []
        do throws(OpenStackError) {
            let clients = try await connection.clients()
            var inventory = Inventory()
            inventory.servers = try await clients.nova.findServers(tags: OwnershipKeys.tags(application: application))
            inventory.volumes = try await clients.cinder.volumes(metadata: OwnershipKeys.filter(application: application))
            inventory.groups = try await clients.neutron.securityGroups(tags: OwnershipKeys.tags(application: application))
            inventory.databases = try await troveInstances(clients.trove)
            observed += volumes.observe(inventory, bases: bases)
            observed += groups.observe(inventory, bases: bases)
            observed += try await servers.observe(inventory, bases: bases)
            observed += try await databases.observe(inventory, application: application, bases: bases)
            observed += schedules.observe(inventory, application: application, bases: bases, recorded: Set(recorded.map(\.address)))
        } catch {
            throw ProviderFailure.wrap(error, context)
        }
        // Object storage is read only where buckets are wanted or recorded: its keys are needed for nothing else.
        if bases.values.contains(where: { $0.kind == BackupBucketKind.kind }) {
            do throws(AWSError) {
                observed += try await buckets.observe(application: application, bases: bases)
            } catch {
                throw ProviderFailure.wrap(error, context)
            }
        }
        return observed.sorted { $0.address < $1.address }
    }

    /// A cloud without Trove has no instances to find.
    private func troveInstances(_ trove: TroveClient) async throws(OpenStackError) -> [DatabaseInstance] {
        do throws(OpenStackError) {
            return try await trove.instances()
        } catch {
            if case .noEndpoint = error { return [] }
            throw error
        }
    }

    static let kinds: Set<ResourceKind> = [
        VolumeKind.kind, DatabaseServerKind.kind, SecurityGroupKind.kind, ManagedDatabaseKind.kind, BackupScheduleKind.kind, BackupBucketKind.kind,
    ]

    static func unknown(_ address: ResourceAddress, _ kind: ResourceKind) -> ProviderError {
        ProviderError(.unavailable, "\(address): the openstack provider does not make \(kind) resources (it makes \(kinds.map(\.rawValue).sorted().joined(separator: ", ")))")
    }

    public func replacementReasons(desired: DesiredResource, current: JSONValue) -> [String] {
        let wanted = ResourceBody(desired.body), now = ResourceBody(current)
        switch desired.type {
        case VolumeKind.kind: return VolumeKind.replacementReasons(desired: wanted, current: now)
        case DatabaseServerKind.kind: return DatabaseServerKind.replacementReasons(desired: wanted, current: now)
        case ManagedDatabaseKind.kind: return ManagedDatabaseKind.replacementReasons(desired: wanted, current: now)
        case BackupBucketKind.kind: return BackupBucketKind.replacementReasons(desired: wanted, current: now)
        default: return []
        }
    }

    public func problems(desired: DesiredResource) -> [String] {
        switch desired.type {
        case SecurityGroupKind.kind: SecurityGroupKind.problems(ResourceBody(desired.body))
        case DatabaseServerKind.kind: DatabaseServerKind.problems(ResourceBody(desired.body), environment: environment)
        case ManagedDatabaseKind.kind: TroveAccess.problems(ResourceBody(desired.body), environment: environment)
        default: []
        }
    }

    public func create(_ resource: DesiredResource) async throws(ProviderError) -> ObservedResource {
        try await change(resource, recorded: nil)
    }

    public func update(_ resource: DesiredResource, recorded: ResourceState) async throws(ProviderError) -> ObservedResource {
        try await change(resource, recorded: recorded)
    }

    private func change(_ resource: DesiredResource, recorded: ResourceState?) async throws(ProviderError) -> ObservedResource {
        let body = ResourceBody(resource.body)
        let context = recorded == nil ? "create" : "update"
        guard Self.kinds.contains(resource.type) else { throw Self.unknown(resource.address, resource.type) }
        if resource.type == BackupBucketKind.kind {
            do throws(AWSError) {
                return try await buckets.apply(body)
            } catch {
                throw ProviderFailure.wrap(error, context)
            }
        }
        do throws(OpenStackError) {
            switch (resource.type, recorded) {
            case (VolumeKind.kind, let recorded?): return try await volumes.update(body, recorded: recorded)
            case (VolumeKind.kind, nil): return try await volumes.create(body)
            case (DatabaseServerKind.kind, let recorded?): return try await servers.update(body, recorded: recorded)
            case (DatabaseServerKind.kind, nil): return try await servers.create(body)
            case (SecurityGroupKind.kind, let recorded?): return try await groups.update(body, recorded: recorded)
            case (SecurityGroupKind.kind, nil): return try await groups.create(body)
            case (ManagedDatabaseKind.kind, let recorded?): return try await databases.update(body, recorded: recorded)
            case (ManagedDatabaseKind.kind, nil): return try await databases.create(body)
            default: return try await schedules.apply(body)
            }
        } catch {
            throw ProviderFailure.wrap(error, context)
        }
    }

    public func delete(_ resource: ResourceState) async throws(ProviderError) {
        let kind = ResourceKind(resource.attributes["kind"]?.stringValue ?? "")
        let context = "delete"
        guard Self.kinds.contains(kind) else { throw Self.unknown(resource.address, kind) }
        if kind == BackupBucketKind.kind {
            do throws(AWSError) {
                try await buckets.delete(resource)
                return
            } catch {
                throw ProviderFailure.wrap(error, context)
            }
        }
        do throws(OpenStackError) {
            switch kind {
            case VolumeKind.kind: try await volumes.delete(resource)
            case DatabaseServerKind.kind: try await servers.delete(resource)
            case SecurityGroupKind.kind: try await groups.delete(resource, poller: poller)
            case ManagedDatabaseKind.kind: try await databases.delete(resource)
            default: try await schedules.delete(resource)
            }
        } catch {
            throw ProviderFailure.wrap(error, context)
        }
    }
}
