import MCloudAWS
import Foundation
import MCloudCore
import MCloudProvider

/// Everything carrying an application's tags in one region, read with one listing per service.
struct AWSInventory {
    var instances: [EC2Client.Instance]
    var volumes: [EC2Client.Volume]
    var groups: [EC2Client.SecurityGroup]
    var databases: [RDSClient.Instance]
    var buckets: [(name: String, tags: [String: String], retentionDays: Int?)]
    var users: [IAMClient.User] = []

    /// Instances that still exist (terminated ones linger in listings for an hour).
    static let liveStates = ["pending", "running", "stopping", "stopped", "shutting-down"]

    static func read(_ session: AWSSession, tags: [String: String]) async throws(AWSError) -> AWSInventory {
        let instances = try await session.ec2.describeInstances(tags: tags, states: liveStates)
        let volumes = try await session.ec2.describeVolumes(tags: tags)
        let groups = try await session.ec2.describeSecurityGroups(tags: tags)
        let databases = try await session.rds.describeInstances().filter { instance in tags.allSatisfy { instance.tags[$0.key] == $0.value } }
        var buckets: [(name: String, tags: [String: String], retentionDays: Int?)] = []
        for name in try await session.s3.listBuckets(prefix: "mcloud-", tags: tags) {
            let rules = try await session.s3.lifecycle(name)
            buckets.append((name, try await session.s3.tags(name), rules.first?.expireAfterDays))
        }
        return AWSInventory(
            instances: instances, volumes: volumes, groups: groups, databases: databases, buckets: buckets, users: try await users(session, tags: tags)
        )
    }

    /// `endpoints`: the addresses each RDS instance's endpoint resolves to, by identifier.
    func observed(_ known: ReadBack, endpoints: [String: [String]] = [:]) -> [ObservedResource] {
        var found: [ObservedResource] = []
        func add(_ tags: [String: String], kind: ResourceKind, id: String, read: [([String], JSONValue)], deleting: Bool = false) {
            guard let address = tags[AWSTag.address].map({ ResourceAddress($0) }) else { return }
            let attributes = known.attributes(address: address, kind: kind, digest: tags[AWSTag.digest], read: read)
            found.append(ObservedResource(address: address, providerID: id, attributes: attributes, isBeingDeleted: deleting))
        }
        let groupAddresses = Dictionary(groups.compactMap { group in group.tags[AWSTag.address].map { (group.id, $0) } }, uniquingKeysWith: { first, _ in first })
        for group in groups {
            let wanted = known.body(tagged: group.tags[AWSTag.address])
            add(group.tags, kind: .securityGroup, id: group.id, read: [(["spec", "ingress"], Self.ingress(group, wanted: wanted, groups: groupAddresses))])
        }
        for volume in volumes {
            add(volume.tags, kind: .volume, id: volume.id, read: [(["spec", "sizeGiB"], .int(volume.sizeGiB)), (["spec", "zone"], .string(volume.zone))], deleting: volume.state == "deleting")
        }
        for instance in instances {
            let wanted = known.body(tagged: instance.tags[AWSTag.address])
            var read: [([String], JSONValue)] = instance.zone.map { [(["spec", "zone"], .string($0))] } ?? []
            if let type = instance.instanceType, let flavor = Self.flavor(type, wanted: wanted?.value(at: ["spec", "flavor"]), database: false) {
                read.append((["spec", "flavor"], flavor))
            }
            read += Self.reporting(AWSResourceProvider.reachableAddresses(instance))
            add(instance.tags, kind: .databaseServer, id: instance.id, read: read, deleting: instance.state == "shutting-down")
            if let schedule = Self.schedule(instance.tags, known: known, id: instance.id) { found.append(schedule) }
        }
        for database in databases {
            let read = Self.managed(database, wanted: known.body(tagged: database.tags[AWSTag.address])) + Self.reporting(endpoints[database.identifier] ?? [])
            add(database.tags, kind: .managedDatabase, id: database.identifier, read: read,
                deleting: database.status.lowercased() == "deleting")
            if let schedule = Self.schedule(database.tags, known: known, id: database.identifier) { found.append(schedule) }
        }
        for bucket in buckets {
            let read: [([String], JSONValue)] = [(["spec", "bucketName"], .string(bucket.name))] + (bucket.retentionDays.map { [(["spec", "retentionDays"], .int($0))] } ?? [])
            add(bucket.tags, kind: .backupBucket, id: bucket.name, read: read)
        }
        for user in users {
            add(user.tags, kind: .backupIdentity, id: user.name, read: [(["spec", "userName"], .string(user.name))])
        }
        return found
    }

    /// `status.addresses` read back, when there are any.
    static func reporting(_ addresses: [String]) -> [([String], JSONValue)] {
        addresses.isEmpty ? [] : [(ResourceBody.reportedAddressesPath, .array(addresses.map(JSONValue.string)))]
    }

    /// The flavor an instance type stands for: the wanted one when the type is what mcloud picks for it.
    static func flavor(_ type: String, wanted: JSONValue?, database: Bool) -> JSONValue? {
        if let wanted, let vcpu = wanted["vcpu"]?.doubleValue, let memory = wanted["memoryGiB"]?.doubleValue,
            AWSInstanceType.name(vcpu: vcpu, memoryGiB: memory, database: database) == type
        {
            return wanted
        }
        return AWSInstanceType.resources(type).map { .object([("vcpu", .int($0.vcpu)), ("memoryGiB", .int($0.memoryGiB))]) }
    }

    private static func managed(_ database: RDSClient.Instance, wanted: JSONValue?) -> [([String], JSONValue)] {
        var read: [([String], JSONValue)] = []
        if let engine = database.engine { read.append((["spec", "engine"], .string(AWSEngine.mcloudName(engine)))) }
        if let version = database.engineVersion {
            // RDS reports the minor version it chose for "16".
            let asked = wanted.flatMap { ResourceBody($0).string("version") }
            read.append((["spec", "version"], .string(asked.map { version == $0 || version.hasPrefix($0 + ".") } == true ? asked ?? version : version)))
        }
        if let port = database.port { read.append((["spec", "port"], .int(port))) }
        if let type = database.instanceClass {
            let wantedSize = wanted?.value(at: ["spec", "size"])
            let flavor = flavor(type, wanted: wantedSize.map { size in .object(size.objectPairs.filter { $0.0 != "storageGiB" }) }, database: true)
            if let vcpu = flavor?["vcpu"] { read.append((["spec", "size", "vcpu"], vcpu)) }
            if let memory = flavor?["memoryGiB"] { read.append((["spec", "size", "memoryGiB"], memory)) }
        }
        if let storage = database.allocatedStorageGB { read.append((["spec", "size", "storageGiB"], .int(storage))) }
        let wantedStandbys = wanted?.value(at: ["spec", "standbys"])?.doubleValue.map { Int($0) } ?? 0
        read.append((["spec", "standbys"], .int(database.multiAZ ? max(wantedStandbys, 1) : 0)))
        return read
    }

    /// A BackupSchedule lives as tags on its database.
    private static func schedule(_ tags: [String: String], known: ReadBack, id: String) -> ObservedResource? {
        guard let address = tags[AWSTag.backupAddress].map({ ResourceAddress($0) }) else { return nil }
        var read: [([String], JSONValue)] = []
        if let encoded = tags[AWSTag.backupSchedule], let data = Data(base64Encoded: encoded) {
            read.append((["spec", "schedule"], .string(String(decoding: data, as: UTF8.self))))
        }
        if let days = tags[AWSTag.backupRetention].flatMap({ Int($0) }) { read.append((["spec", "retentionDays"], .int(days))) }
        let attributes = known.attributes(address: address, kind: .backupSchedule, digest: tags[AWSTag.backupDigest], read: read)
        return ObservedResource(address: address, providerID: id, attributes: attributes)
    }

    /// The rules mcloud made, described by their sources, in the wanted order first; others as the cloud has them.
    private static func ingress(_ group: EC2Client.SecurityGroup, wanted: JSONValue?, groups: [String: String]) -> JSONValue {
        var rules = group.ingress.map { rule -> JSONValue in
            var fields: [(String, JSONValue)] = [("protocol", .string(rule.ipProtocol == "-1" ? "ALL" : rule.ipProtocol.uppercased()))]
            if let port = rule.fromPort, rule.toPort == port { fields.append(("port", .int(port))) }
            let source: (String, JSONValue)
            if let description = rule.description, description.hasPrefix(AWSSecurityRules.descriptionPrefix),
                let equals = description.firstIndex(of: "=")
            {
                let key = String(description[description.index(description.startIndex, offsetBy: AWSSecurityRules.descriptionPrefix.count)..<equals])
                source = (key, .string(String(description[description.index(after: equals)...])))
            } else if let cidr = rule.cidr {
                source = ("cidr", .string(cidr))
            } else {
                source = ("securityGroup", .string(rule.sourceGroupID.map { groups[$0] ?? $0 } ?? ""))
            }
            fields.append(("from", .object([source])))
            return .object(fields)
        }
        rules = mergedClusterRanges(rules, ranges: group.ingress.map(\.cidr), wanted: wanted?.value(at: ["spec", "ingress"])?.arrayItems ?? [])
        var ordered: [JSONValue] = []
        for item in wanted?.value(at: ["spec", "ingress"])?.arrayItems ?? [] {
            if let index = rules.firstIndex(where: { FieldDiff.same($0, item) }) { ordered.append(rules.remove(at: index)) }
        }
        return .array(ordered + rules)
    }
}

extension AWSInventory {
    /// The rules of one cluster item, made one per egress range, read back as that one item with its `cidrs`
    /// (when the wanted item lists them; a range found otherwise stays as the cloud has it).
    static func mergedClusterRanges(_ rules: [JSONValue], ranges: [String?], wanted: [JSONValue]) -> [JSONValue] {
        var result: [JSONValue] = []
        var merged: [Int: [String]] = [:]
        for (rule, range) in zip(rules, ranges) {
            guard let cluster = rule.value(at: ["from", "kubernetesCluster"]), let range,
                wanted.contains(where: { $0.value(at: ["from", "kubernetesCluster"]) == cluster && $0.value(at: ["from", "cidrs"]) != nil })
            else {
                result.append(rule)
                continue
            }
            if let index = result.firstIndex(where: { $0["protocol"] == rule["protocol"] && $0["port"] == rule["port"] && $0.value(at: ["from", "kubernetesCluster"]) == cluster }) {
                merged[index, default: []].append(range)
            } else {
                merged[result.count] = [range]
                result.append(rule)
            }
        }
        return result.enumerated().map { index, rule in
            guard let ranges = merged[index], case .object(var fields) = rule, let cluster = rule.value(at: ["from", "kubernetesCluster"]) else { return rule }
            fields = fields.map { $0.0 == "from" ? ("from", .object([("kubernetesCluster", cluster), ("cidrs", .array(ranges.sorted().map(JSONValue.string)))])) : $0 }
            return .object(fields)
        }
    }
}

/// mcloud's engine names and RDS's. `mysql` is also MariaDB (its alias): RDS's `mariadb` engine for the MariaDB
/// series (10.x, 11.x), its `mysql` engine for MySQL's (8.x).
enum AWSEngine {
    private static let rdsNames = ["postgresql": "postgres", "mysql": "mysql"]
    /// Every RDS engine mcloud creates instances of.
    static let rdsEngines = ["postgres", "mysql", "mariadb"]

    static func rdsName(_ engine: String, version: String? = nil) -> String? {
        if engine == "mysql", let version, version.hasPrefix("10.") || version.hasPrefix("11.") { return "mariadb" }
        return rdsNames[engine]
    }

    static func mcloudName(_ rds: String) -> String { rds == "mariadb" ? "mysql" : rdsNames.first { $0.value == rds }?.key ?? rds }
}
