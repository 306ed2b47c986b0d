public import MCloudCore
public import MCloudProvider

/// A desired PostgreSQL 15 primary `bank.ledger.0` of the cell `ledger@eu` with `clients` dependent services, each
/// with a user, a database and a CIDR, and, given `backup`, its DR bucket: the input of the IaaS providers' plan-time
/// user data checks.
public enum DatabaseServerFixture {
    public static func primary(
        clients count: Int, address: ResourceAddress, provider: ProviderName, cloud: String, backup: BucketLocation? = nil
    ) -> DesiredResource {
        let clients = (0..<count).map { index in
            DatabaseAccess.Client(service: "service-\(index)@eu", user: "service_\(index)", database: "service_\(index)", cidrs: ["10.\(index % 250).0.0/16"])
        }
        let access = ResourceBody.DatabaseServerField.access(DatabaseAccess(cell: "ledger@eu", names: ["ledger.bank-eu.svc"], clients: clients))
        var body: JSONValue = .object([("kind", .string("DatabaseServer")), ("metadata", .object([("name", .string("bank.ledger.0"))]))])
        body = ResourceBody.setting(["metadata", "labels", ResourceLabels.partOf], to: .string("bank"), in: body)
        body = ResourceBody(body).settingSpec(["engine"], .string("postgresql")).settingSpec(["version"], .string("15")).settingSpec(["role"], .string("primary"))
            .settingSpec([access.key], access.value).document
        if let backup {
            let field = ResourceBody.DatabaseServerField.backup(BackupSettings(schedule: "0 3 * * *", retentionDays: 7, location: backup))
            body = ResourceBody(body).settingSpec([field.key], field.value).document
        }
        return DesiredResource(address: address, provider: provider, cloud: cloud, type: .databaseServer, body: body, dependencies: [])
    }
}
