import MCloudAWS
import Foundation
import MCloudCore
import MCloudHTTP
import MCloudProvider

/// ManagedDatabase (RDS), BackupSchedule (tags on the database, and RDS backup retention) and BackupBucket (S3).
extension AWSResourceProvider {
    func applyManagedDatabase(_ resource: DesiredResource, _ session: AWSSession) async throws(AWSError) -> ObservedResource {
        let body = resource.body
        let identifier = AWSNames.database(address: resource.address.rawValue, name: body.value(at: ["metadata", "name"])?.stringValue ?? resource.address.rawValue)
        let engineName = ResourceBody(body).string("engine") ?? ""
        guard let engine = AWSEngine.rdsName(engineName, version: ResourceBody(body).string("version")) else {
            throw .configuration("\(resource.address): RDS has no \(engineName) engine; leave it out of the cloud's offers.dbaas so it runs on VMs")
        }
        let instanceClass = AWSInstanceType.name(
            vcpu: ResourceBody(body).double("size", "vcpu") ?? 2, memoryGiB: ResourceBody(body).double("size", "memoryGiB") ?? 8, database: true
        )
        let storage = Int((ResourceBody(body).double("size", "storageGiB") ?? 20).rounded(.up))
        let multiAZ = (ResourceBody(body).double("standbys") ?? 0) > 0
        let port = ResourceBody(body).double("port").map { Int($0) }
        let version = ResourceBody(body).string("version")
        let tags = AWSTag.tags(body, address: resource.address, cloud: cloud)
        if let current = try await session.rds.describeInstance(identifier) {
            var changes: [(String, String)] = []
            if current.instanceClass != instanceClass { changes.append(("DBInstanceClass", instanceClass)) }
            if let size = current.allocatedStorageGB, size < storage { changes.append(("AllocatedStorage", String(storage))) }
            if current.multiAZ != multiAZ { changes.append(("MultiAZ", String(multiAZ))) }
            if let port, current.port != port { changes.append(("DBPortNumber", String(port))) }
            if let version, let running = current.engineVersion, running != version, !running.hasPrefix(version + ".") {
                changes += [("EngineVersion", version), ("AllowMajorVersionUpgrade", "true")]
            }
            try await session.rds.modifyInstance(identifier, changes)
            if let arn = current.arn { try await session.rds.addTags(arn: arn, tags) }
        } else {
            let groups = try await securityGroupIDs(body, resource.address, session)
            let spec = RDSClient.InstanceSpec(
                identifier: identifier, instanceClass: instanceClass, engine: engine, engineVersion: version, allocatedStorageGB: storage,
                masterUsername: "mcloud", masterPassword: nil, securityGroupIDs: groups, tags: tags, multiAZ: multiAZ,
                availabilityZone: body.value(at: ["spec", "zones"])?.arrayItems.first?.stringValue, port: port
            )
            do throws(AWSError) {
                _ = try await session.rds.createInstance(spec)
            } catch where error.code == "DBInstanceAlreadyExists" {
                // A lost answer: the first attempt made it.
            }
        }
        let available = try await session.rds.waitUntilAvailable(identifier, timeout: settings.timeout)
        // RDS gives a host name (the instance is never public, so it names a private address of its VPC); the
        // EndpointSlices and egress policies that follow it need the address it points at now.
        let addresses = if let host = available.endpoint { await settings.resolver.ipv4Addresses(host) } else { [String]() }
        return ObservedResource(address: resource.address, providerID: identifier, attributes: ResourceBody(body).reportingAddresses(addresses).document)
    }

    /// Deletes the instance keeping a final snapshot (`<identifier>-final-<time>`): destroying a database should not
    /// destroy its data.
    func deleteManagedDatabase(_ resource: ResourceState, _ session: AWSSession) async throws(AWSError) {
        let identifier = AWSNames.database(address: resource.address.rawValue, name: resource.attributes.value(at: ["metadata", "name"])?.stringValue ?? resource.address.rawValue)
        guard let current = try await session.rds.describeInstance(identifier) else { return }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        let snapshot = current.status.lowercased() == "deleting" ? nil : "\(identifier)-final-\(formatter.string(from: session.client.now))"
        try await session.rds.deleteAndWait(identifier, finalSnapshot: snapshot, timeout: settings.timeout)
    }

    func applyBackupSchedule(_ resource: DesiredResource, _ session: AWSSession) async throws(AWSError) -> ObservedResource {
        let body = resource.body
        let days = Int(ResourceBody(body).double("retentionDays") ?? 7)
        var tags = [
            AWSTag.backupAddress: resource.address.rawValue, AWSTag.backupDigest: AWSTag.digest(body),
            AWSTag.backupSchedule: Data((ResourceBody(body).string("schedule") ?? "").utf8).base64EncodedString(), AWSTag.backupRetention: String(days),
        ]
        if let copyTo = ResourceBody(body).string("copyTo") { tags[AWSTag.backupBucket] = ResourceBody(body).string("bucket") ?? Self.bucketName(copyTo) }
        let target = try await backupTarget(body, resource.address, session)
        switch target {
        case .instance(let id):
            try await session.ec2.createTags([id], tags)
        case .database(let identifier, let arn):
            // RDS keeps daily snapshots for at most 35 days; the tag keeps the wanted retention for the copies.
            try await session.rds.modifyInstance(identifier, [("BackupRetentionPeriod", String(min(35, max(1, days))))])
            try await session.rds.addTags(arn: arn, tags)
            _ = try await session.rds.waitUntilAvailable(identifier, timeout: settings.timeout)
        }
        return ObservedResource(address: resource.address, providerID: target.id, attributes: body)
    }

    func deleteBackupSchedule(_ resource: ResourceState, _ session: AWSSession) async throws(AWSError) {
        let filter = [AWSTag.backupAddress: resource.address.rawValue]
        let instances = try await session.ec2.describeInstances(tags: filter, states: AWSInventory.liveStates).map(\.id)
        try await session.ec2.deleteTags(instances, keys: AWSTag.backupKeys)
        for database in try await session.rds.describeInstances() where database.tags[AWSTag.backupAddress] == resource.address.rawValue {
            guard let arn = database.arn else { continue }
            try await session.rds.removeTags(arn: arn, keys: AWSTag.backupKeys)
        }
    }

    func applyBackupBucket(_ resource: DesiredResource, _ session: AWSSession) async throws(AWSError) -> ObservedResource {
        let name = Self.bucketName(resource.body, address: resource.address)
        let days = ResourceBody(resource.body).double("retentionDays").map { Int($0) }
        let tags = AWSTag.tags(resource.body, address: resource.address, cloud: cloud)
        try await session.s3.ensureBucket(.init(name: name, expireAfterDays: days, noncurrentExpireAfterDays: days, tags: tags))
        return ObservedResource(address: resource.address, providerID: name, attributes: resource.body)
    }

    /// Deletes every backup in the bucket, then the bucket.
    func deleteBackupBucket(_ resource: ResourceState, _ session: AWSSession) async throws(AWSError) {
        try await session.s3.deleteBucket(Self.bucketName(resource.attributes, address: resource.address))
    }

    /// A BackupBucket's `spec.bucketName`, else the name its address gives.
    static func bucketName(_ body: JSONValue, address: ResourceAddress) -> String {
        ResourceBody(body).string("bucketName") ?? bucketName(address.rawValue)
    }

    /// The bucket of a BackupBucket address (`aws.aws-irl.BackupBucket.shop.shop-db`), named after its last part.
    static func bucketName(_ address: String) -> String {
        let name = address.split(separator: ".", maxSplits: 3).dropFirst(3).first.map(String.init) ?? address
        return AWSNames.bucket(address: address, name: name)
    }

    private enum BackupTarget {
        case instance(String)
        case database(identifier: String, arn: String)

        var id: String {
            switch self {
            case .instance(let id): return id
            case .database(let identifier, _): return identifier
            }
        }
    }

    private func backupTarget(_ body: JSONValue, _ address: ResourceAddress, _ session: AWSSession) async throws(AWSError) -> BackupTarget {
        guard let database = ResourceBody(body).string("database") else { throw .configuration("\(address) names no spec.database") }
        if database.contains(".ManagedDatabase.") {
            let name = database.split(separator: ".", maxSplits: 3).dropFirst(3).first.map(String.init) ?? database
            let identifier = AWSNames.database(address: database, name: name)
            guard let found = try await session.rds.describeInstance(identifier), let arn = found.arn else {
                throw .configuration("\(address): its database \(database) does not exist")
            }
            return .database(identifier: identifier, arn: arn)
        }
        guard let instance = try await session.ec2.describeInstances(tags: [AWSTag.address: database], states: AWSInventory.liveStates).first else {
            throw .configuration("\(address): its database \(database) does not exist")
        }
        return .instance(instance.id)
    }
}
