import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider

/// What a database cell needs outside Kubernetes. In the primary's cloud: the cloud's managed engine where it sells
/// one and the database's `hosting` is not `vm` (it handles standbys, volumes and failover itself), else one VM and
/// volume per copy, the primary first and
/// each standby in the next zone; a security group open to the clusters of the services that use it; the backup
/// schedule. In the backup cloud: the bucket the DR copies go to and, on AWS, the IAM user the backup job uploads as.
struct DatabaseInfrastructure {
    private let topology: Topology
    private let index: Int
    let cell: Topology.DatabaseCell
    let cloud: Cloud
    /// `retail-bank-ru.accounts-db`: what every resource of the cell is named after.
    private let base: String
    private let labels: CellLabels
    private let port: Int?
    let managed: Bool

    /// Nil when the primary's cloud is not in the catalog, which a validated model rules out.
    init?(_ index: Int, in topology: Topology) {
        let cell = topology.databases[index]
        guard let cloud = topology.clouds[cell.primary] else { return nil }
        self.topology = topology
        self.index = index
        self.cell = cell
        self.cloud = cloud
        base = "\(cell.namespace).\(cell.database.name)"
        labels = CellLabels(cell: cell.cell, application: topology.application, workloadLabels: cell.database.labels)
        port = DatabaseEndpoint.port(cell)
        managed = cell.database.runsManaged(on: cloud)
    }

    var resources: [InfrastructureResource] {
        (managed ? [managedDatabase] : servers) + [securityGroup] + backups
    }

    private var database: Database { cell.database }
    private var provider: ProviderName { ProviderName(cloud.api.rawValue) }
    private var databaseAddress: String { managed ? address(.managedDatabase, base) : address(.databaseServer, "\(base).0") }
    private var securityGroupAddress: String { address(.securityGroup, base) }

    /// The zone of each copy, the primary's first; none when the catalog lists no zones.
    private var zones: [String] {
        cloud.zones.isEmpty ? [] : (0...database.standbys).map { cloud.zones[$0 % cloud.zones.count] }
    }

    private func address(_ kind: ResourceKind, _ name: String) -> String {
        InfrastructureResource.address(provider: provider, cloud: cloud.name, kind: kind, name: name)
    }

    private func resource(_ kind: ResourceKind, _ name: String, _ spec: [(String, ObjectNode)]) -> InfrastructureResource {
        InfrastructureResource(kind: kind, name: name, cloud: cloud.name, provider: provider, labels: labels.metadata(cloud: cloud.name), spec: spec)
    }

    private var engine: [(String, ObjectNode)] {
        [("engine", .string(database.engine)), ("version", .string(database.version))] + (port.map { [("port", .int($0))] } ?? [])
    }

    private var managedDatabase: InfrastructureResource {
        let size: ObjectNode = ["vcpu": .number(database.size.vcpu), "memoryGiB": .number(database.size.memoryGiB), "storageGiB": .number(database.size.storageGiB)]
        var spec = engine + [("size", size), ("standbys", .int(database.standbys))]
        if !zones.isEmpty { spec.append(("zones", .list(zones.map(ObjectNode.string)))) }
        spec += [("securityGroup", .string(securityGroupAddress)), ("dnsName", .string(DatabaseEndpoint.host(cell)))]
        // Where the cloud makes users through its API, its clients as a server's; no names: no certificate of
        // mcloud's is made for it.
        if ManagedAccess.makesUsers(api: cloud.api, engine: Engine(named: database.engine)), let access, !access.clients.isEmpty {
            spec.append(field(ResourceBody.DatabaseServerField.access(DatabaseAccess(cell: access.cell, names: [], clients: access.clients))))
        }
        return resource(.managedDatabase, base, spec)
    }

    /// A Volume and a DatabaseServer per copy: `.0` the primary, then the standbys.
    private var servers: [InfrastructureResource] {
        (0...database.standbys).flatMap { copy -> [InfrastructureResource] in
            let name = copy == 0 ? primaryName : "\(base).\(copy)"
            let zone: [(String, ObjectNode)] = zones.isEmpty ? [] : [("zone", .string(zones[copy]))]
            var server: [(String, ObjectNode)] = [field(ResourceBody.DatabaseServerField.role(copy == 0 ? .primary : .standby))] + engine
            server.append(("flavor", ["vcpu": .number(database.size.vcpu), "memoryGiB": .number(database.size.memoryGiB)]))
            server.append(field(ResourceBody.DatabaseServerField.image(cloud.vmImage)))
            server += zone + [("volume", .string(address(.volume, name))), ("securityGroup", .string(securityGroupAddress))]
            server.append(
                copy == 0 ? ("dnsName", .string(DatabaseEndpoint.host(cell))) : field(ResourceBody.DatabaseServerField.replicaOf(ResourceAddress(databaseAddress)))
            )
            // The primary backs up for the cell: a standby holds the same data, and dumps it never. A PostgreSQL
            // standby holds the archive's keys too, so that once a switchover promotes it the archive goes on.
            if let backup = serverBackup, copy == 0 || standbysKeepTheArchive { server.append(field(ResourceBody.DatabaseServerField.backup(backup))) }
            // Every copy has the primary's certificate names and users: a standby replicates over that TLS.
            if let access { server.append(field(ResourceBody.DatabaseServerField.access(access))) }
            if let replication = replication(copy) { server.append(field(ResourceBody.DatabaseServerField.replication(replication))) }
            return [resource(.volume, name, [("sizeGiB", .number(database.size.storageGiB))] + zone), resource(.databaseServer, name, server)]
        }
    }

    /// The engine port from each cluster whose services use the database, and between the VMs for replication;
    /// without a known port, a rule stands for every TCP port.
    private var securityGroup: InfrastructureResource {
        func rule(_ from: ObjectNode) -> ObjectNode {
            .map([("protocol", "TCP")] + (port.map { [("port", .int($0))] } ?? []) + [("from", from)])
        }
        let clients = Set(topology.databaseDependents[index].flatMap { topology.services[$0].replicas.map(\.cloud) }).sorted()
        // With the cluster's egress addresses from the catalog, the provider opens the port to those only.
        var rules = clients.map { client -> ObjectNode in
            let cidrs = topology.clouds[client]?.endpoints.kubernetesEgressCIDRs ?? []
            var from: [(String, ObjectNode)] = [("kubernetesCluster", .string(client))]
            if !cidrs.isEmpty { from.append(("cidrs", .list(cidrs.map(ObjectNode.string)))) }
            return rule(.map(from))
        }
        if !managed, database.standbys > 0 { rules.append(rule(["securityGroup": .string(securityGroupAddress)])) }
        return resource(.securityGroup, base, [("ingress", .list(rules))])
    }

    /// Who may use the primary and its standbys: per dependent service cell, a user and a database of its own, admitted from the egress
    /// CIDRs of the clusters it runs in, or, in the database's own cloud when the catalog gives none, from the private
    /// ranges (the security group then narrows it to the cloud's network). The certificate's names are the in-cluster
    /// ones of the database's namespace and of each dependent's. Nil when no service depends on it and it has no standbys.
    private var access: DatabaseAccess? {
        var clients: [String: DatabaseAccess.Client] = [:]
        // The name in each dependent's namespace is the connection's (`Wiring.localName`): a global cell reaching one
        // audience's cell of several has the audience in it, and its Secret's host must be a name of the certificate.
        var hosts = ["\(database.name).\(cell.namespace).svc"]
        for dependent in topology.databaseDependents[index].map({ topology.services[$0] }) {
            let user = DatabaseAccess.engineName(dependent.cell.name)
            let cidrs = dependent.replicas.flatMap { replica -> [String] in
                let egress = topology.clouds[replica.cloud]?.endpoints.kubernetesEgressCIDRs ?? []
                return egress.isEmpty && replica.cloud == cloud.name ? Self.privateRanges : egress
            }
            clients[dependent.cell.name] = DatabaseAccess.Client(service: dependent.cell.name, user: user, database: user, cidrs: Array(Set(cidrs)).sorted())
            let host = Wiring.localName(database.name, of: cell.cell, for: Connection.Dependent(cell: dependent.cell, cloud: cloud.name, namespace: dependent.namespace))
            if !hosts.contains(host) { hosts.append(host) }
        }
        guard !clients.isEmpty || database.standbys > 0 else { return nil }
        let names = hosts.flatMap { [$0, "\($0).cluster.local"] }
        return DatabaseAccess(cell: cell.cell.name, names: names, clients: clients.values.sorted { $0.service < $1.service })
    }

    /// A copy's part in the cell's replication (docs/databases.md, "Standbys"): the primary names its standbys and admits
    /// them from the private ranges, as the security group admits only its own members and the clients' clusters; each
    /// standby names the primary's server, whose certificate holds that name, and admits the other members from the
    /// same ranges, so that a switchover can make it the primary. Nil without standbys.
    private func replication(_ copy: Int) -> DatabaseReplication? {
        guard database.standbys > 0 else { return nil }
        guard copy > 0 else { return .primary(standbys: (1...database.standbys).map(DatabaseReplication.standbyName(copy:)), cidrs: Self.privateRanges) }
        let port = port ?? Engine(named: database.engine)?.defaultPort ?? 0
        return .standby(name: DatabaseReplication.standbyName(copy: copy), primary: primaryName, port: port, cidrs: Self.privateRanges)
    }

    /// RFC 1918's ranges.
    static let privateRanges = DatabaseReplication.privateRanges

    /// The DR leg's bucket: in the backup cloud, named after the cell.
    var disasterBucket: (cloud: Cloud, address: String, name: String)? {
        guard database.backup != nil, let bucketCloud = cell.backup.flatMap({ topology.clouds[$0] }) else { return nil }
        let address = InfrastructureResource.address(provider: ProviderName(bucketCloud.api.rawValue), cloud: bucketCloud.name, kind: .backupBucket, name: base)
        return (bucketCloud, address, Self.bucketName(base, address: address))
    }

    /// A field of the provider contract's spelling, as a node.
    private func field(_ field: (key: String, value: JSONValue)) -> (String, ObjectNode) { (field.key, ObjectNode(field.value)) }

    /// What a VM's backup job is set up with at boot: the schedule and retention, and where it uploads to, so that
    /// its provider can hand the VM keys for that bucket. Nothing secret: the provider resolves the keys when it
    /// creates the VM. The bucket's cloud, not its address: the bucket names the VM as its source, and an address here
    /// would make them depend on each other.
    private var serverBackup: BackupSettings? {
        guard let backup = database.backup else { return nil }
        let location = disasterBucket.map { bucket in
            var location = BucketLocation(backupLeg: bucket.name, in: bucket.cloud)
            location.identity = backupIdentity.map { BucketIdentity(address: $0.address, user: $0.user, deployProfile: bucket.cloud.endpoints.awsProfile) }
            return location
        }
        return BackupSettings(schedule: backup.schedule, retentionDays: backup.retentionDays, location: location)
    }

    /// Whether the cell's primary archives its WAL into the DR leg (PostgreSQL over TLS with keys that may read,
    /// `PostgreSQLArchive.canArchive`), which its standbys then continue after a switchover.
    private var standbysKeepTheArchive: Bool {
        guard Engine(named: database.engine) == .postgresql, let location = serverBackup?.location else { return false }
        return PostgreSQLArchive.canArchive(to: DatabaseVM.Bucket(location, secrets: []))
    }

    /// The DR leg's own IAM user, when its bucket is on AWS and VMs upload to it (a managed engine's copies are not
    /// made from a VM): named after the bucket (at most 63 of the 64 characters IAM allows, and only characters it
    /// allows), so each leg's user is as unique as its bucket.
    var backupIdentity: (address: String, user: String)? {
        guard !managed, let bucket = disasterBucket, bucket.cloud.api == .aws else { return nil }
        let address = InfrastructureResource.address(provider: ProviderName(bucket.cloud.api.rawValue), cloud: bucket.cloud.name, kind: .backupIdentity, name: base)
        return (address, bucket.name)
    }

    /// The primary's name: its backup job uploads under `<server>/` in the bucket.
    private var primaryName: String { "\(base).0" }

    /// `mcloud-<name>-<hash of the address>`: lowercase letters, digits and single hyphens, at most 63 characters.
    /// S3 bucket names are global, so the hash keeps two applications' or two clouds' buckets of the same cell apart.
    static func bucketName(_ name: String, address: String) -> String {
        let suffix = "-" + StableHash.hex(address, digits: 8)
        var slug = ""
        for character in name.lowercased() {
            if character.isASCII, character.isLetter || character.isNumber { slug.append(character) } else if !slug.hasSuffix("-") { slug.append("-") }
        }
        var head = String(("mcloud-" + slug).prefix(63 - suffix.count))
        while head.hasSuffix("-") { head.removeLast() }
        return head + suffix
    }

    /// The schedule in the primary's cloud and, with a DR leg, the bucket in the backup cloud.
    private var backups: [InfrastructureResource] {
        guard let backup = database.backup else { return [] }
        var schedule: [(String, ObjectNode)] = [
            ("database", .string(databaseAddress)), ("schedule", .string(backup.schedule)), ("retentionDays", .int(backup.retentionDays)),
        ]
        guard let bucket = disasterBucket else { return [resource(.backupSchedule, base, schedule)] }
        schedule += [("copyTo", .string(bucket.address)), ("bucket", .string(bucket.name))]
        // The schedule lets the bucket's refresh tell backups that stopped from backups not due yet.
        var spec: [(String, ObjectNode)] = [
            ("bucketName", .string(bucket.name)), ("source", .string(databaseAddress)), ("schedule", .string(backup.schedule)),
            ("retentionDays", .int(backup.retentionDays)),
        ]
        if let recovery = backup.disasterRecovery {
            spec += [("differentVendor", .bool(recovery.differentVendor)), ("changeGiBDay", .number(recovery.changeGiBDay))]
        }
        let bucketResource = InfrastructureResource(
            kind: .backupBucket, name: base, cloud: bucket.cloud.name, provider: ProviderName(bucket.cloud.api.rawValue),
            labels: labels.metadata(cloud: bucket.cloud.name), spec: spec
        )
        guard let identity = backupIdentity else { return [resource(.backupSchedule, base, schedule), bucketResource] }
        // Write-only, under the primary's prefix: the user can add backups, never read or delete them.
        let identityResource = InfrastructureResource(
            kind: .backupIdentity, name: base, cloud: bucket.cloud.name, provider: ProviderName(bucket.cloud.api.rawValue),
            labels: labels.metadata(cloud: bucket.cloud.name),
            spec: [("userName", .string(identity.user)), ("bucketName", .string(bucket.name)), ("prefix", .string(primaryName + "/")), ("access", "write")]
        )
        return [resource(.backupSchedule, base, schedule), bucketResource, identityResource]
    }
}
