import MCloudCore
import MCloudOpenStack
import MCloudProvider

/// `BackupSchedule`, realised on its database.
/// - On a DatabaseServer: server metadata `backup-schedule`, `backup-retention-days`, `backup-copy-to` and
///   `backup-address`, which the server's cron script (`CloudInit`) turns into its backup job. Read back in full.
/// - On a ManagedDatabase: Trove keeps no metadata and schedules nothing without Mistral, so the schedule lives in
///   mcloud's state; it exists while its Trove instance does (its provider ID is the instance's).
struct BackupScheduleKind: Sendable {
    static let kind = ResourceKind.backupSchedule
    static let keys = (schedule: "backup-schedule", retention: "backup-retention-days", copyTo: "backup-copy-to", address: "backup-address")
    let cloud: String
    let connection: OpenStackConnection
    let databases: ManagedDatabaseKind

    /// A schedule on a Trove instance is found only when the state records it: the cloud holds nothing of it.
    func observe(_ inventory: Inventory, application: String, bases: [ResourceAddress: ResourceBody], recorded: Set<ResourceAddress>) -> [ObservedResource] {
        var observed: [ObservedResource] = []
        for server in inventory.servers {
            guard let text = server.metadata[Self.keys.address], let name = OwnershipKeys.name(of: text, cloud: cloud, kind: Self.kind) else { continue }
            let address = ResourceAddress(text)
            let base = bases[address] ?? .orphan(kind: Self.kind, address: address, name: name, cloud: cloud)
            let body = base.settingSpec(["database"], Inventory.address(of: server).map(JSONValue.string))
                .settingSpec(["schedule"], server.metadata[Self.keys.schedule].map(JSONValue.string))
                .settingSpec(["retentionDays"], server.metadata[Self.keys.retention].flatMap { Int($0) }.map(JSONValue.int))
                .settingSpec(["copyTo"], server.metadata[Self.keys.copyTo].map(JSONValue.string))
            observed.append(ObservedResource(address: address, providerID: server.id, attributes: body.document, isBeingDeleted: server.isDeleting))
        }
        let troveAddresses = Dictionary(
            inventory.databases.compactMap { instance in databases.address(of: instance, application: application).map { ($0, instance.id) } },
            uniquingKeysWith: { first, _ in first }
        )
        for (address, base) in bases where recorded.contains(address) && OwnershipKeys.matches(address.rawValue, cloud: cloud, kind: Self.kind) {
            guard let database = base.string("database"), let id = troveAddresses[ResourceAddress(database)] else { continue }
            observed.append(ObservedResource(address: address, providerID: id, attributes: base.document))
        }
        return observed
    }

    func apply(_ body: ResourceBody) async throws(OpenStackError) -> ObservedResource {
        let clients = try await connection.clients()
        let database = body.string("database") ?? ""
        if let name = OwnershipKeys.name(of: database, cloud: cloud, kind: ManagedDatabaseKind.kind) {
            guard let instance = try await databases.find(application: body.application, name: name, in: clients.trove) else {
                throw .resourceFailed("its database \(database) does not exist")
            }
            return ObservedResource(address: body.address, providerID: instance.id, attributes: body.document)
        }
        guard let server = try await DatabaseServerKind.find(database, in: clients.nova) else {
            throw .resourceFailed("its database \(database) does not exist")
        }
        var items = [Self.keys.address: body.address.rawValue]
        if let schedule = body.string("schedule") { items[Self.keys.schedule] = schedule }
        if let days = body.int("retentionDays") { items[Self.keys.retention] = String(days) }
        if let copyTo = body.string("copyTo") { items[Self.keys.copyTo] = copyTo }
        try await clients.nova.setMetadata(server.id, items)
        if body.string("copyTo") == nil { try await clients.nova.deleteMetadata(server.id, key: Self.keys.copyTo) }
        return ObservedResource(address: body.address, providerID: server.id, attributes: body.document)
    }

    func delete(_ recorded: ResourceState) async throws(OpenStackError) {
        let database = ResourceBody(recorded.attributes).string("database") ?? ""
        guard OwnershipKeys.matches(database, cloud: cloud, kind: DatabaseServerKind.kind) else { return }
        let nova = try await connection.clients().nova
        for key in [Self.keys.schedule, Self.keys.retention, Self.keys.copyTo, Self.keys.address] {
            try await nova.deleteMetadata(recorded.providerID, key: key)
        }
    }
}
