import MCloudCore
import MCloudEngine
import MCloudProvider

/// The scratch database server of a restore drill: a Volume and a DatabaseServer in the target cloud, named after
/// the cell's resources with a `drill-<time>` suffix and labelled as the application's (so that a drill killed
/// halfway leaves orphans the next plan finds and deletes), with the cell's engine, version and size, the cloud's
/// VM image, no backup schedule and no clients, and the recovery point to load as it boots.
struct ScratchDatabase {
    let volume: DesiredResource
    /// Without its recovery point: `server(restoring:)` gives it one.
    let bareServer: DesiredResource

    /// `leg` is the cell's recorded BackupBucket: its name is the cell's resources' name, its labels the cell's.
    init(database: Database, leg: ResourceState, cloud: Cloud, stamp: String) {
        let base = ResourceBody(leg.attributes).name
        let name = "\(base).drill-\(stamp)"
        let provider = ProviderName(cloud.api.rawValue)
        var labels = leg.attributes["metadata"]?["labels"]?.objectPairs.filter { $0.0 != ResourceLabels.cloud } ?? []
        labels.append((ResourceLabels.cloud, .string(cloud.name)))
        func resource(_ kind: ResourceKind, _ spec: [(String, JSONValue)], _ dependencies: [ResourceAddress]) -> DesiredResource {
            let address = ResourceAddress(provider: provider, cloud: cloud.name, kind: kind, name: name)
            let metadata: JSONValue = .object([
                ("name", .string(name)), ("address", .string(address.rawValue)), ("cloud", .string(cloud.name)), ("provider", .string(provider.rawValue)),
                ("labels", .object(labels.sorted { $0.0 < $1.0 })),
            ])
            let body: JSONValue = .object([
                ("apiVersion", .string(ResourceBody.infrastructureAPIVersion)), ("kind", .string(kind.rawValue)), ("metadata", metadata), ("spec", .object(spec)),
            ])
            return DesiredResource(address: address, provider: provider, cloud: cloud.name, type: kind, body: body, dependencies: dependencies)
        }
        volume = resource(.volume, [("sizeGiB", JSONValue.rounded(database.size.storageGiB))], [])
        let spec: [(String, JSONValue)] = [
            ResourceBody.DatabaseServerField.role(.drill), ("engine", .string(database.engine)), ("version", .string(database.version)),
            ("flavor", .object([("vcpu", JSONValue.rounded(database.size.vcpu)), ("memoryGiB", JSONValue.rounded(database.size.memoryGiB))])),
            ResourceBody.DatabaseServerField.image(cloud.vmImage), ("volume", .string(volume.address.rawValue)),
        ]
        bareServer = resource(.databaseServer, spec, [volume.address])
    }

    func server(restoring point: RecoveryPoint) -> DesiredResource {
        var server = bareServer
        server.body = ResourceBody(bareServer.body).restoring(point).document
        return server
    }
}
