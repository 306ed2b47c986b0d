/// RDS database instances: create, describe, delete, and wait until available.
public struct RDSClient: Sendable {
    public static let apiVersion = "2014-10-31"
    public let client: AWSClient

    public init(client: AWSClient) {
        self.client = client
    }

    public struct InstanceSpec: Sendable, Hashable {
        public var identifier: String
        public var instanceClass: String
        public var engine: String
        public var engineVersion: String?
        public var allocatedStorageGB: Int
        public var masterUsername: String
        /// nil: RDS makes the password and keeps it in Secrets Manager (`ManageMasterUserPassword`), so it never
        /// passes through mcloud.
        public var masterPassword: String?
        public var securityGroupIDs: [String]
        public var tags: [String: String]
        public var multiAZ: Bool
        /// Only for a single-AZ instance; RDS picks the zones of a Multi-AZ one.
        public var availabilityZone: String?
        public var port: Int?
        public var backupRetentionDays: Int?

        public init(
            identifier: String, instanceClass: String, engine: String = "postgres", engineVersion: String? = nil, allocatedStorageGB: Int = 20,
            masterUsername: String, masterPassword: String?, securityGroupIDs: [String] = [], tags: [String: String] = [:], multiAZ: Bool = false,
            availabilityZone: String? = nil, port: Int? = nil, backupRetentionDays: Int? = nil
        ) {
            self.multiAZ = multiAZ
            self.availabilityZone = availabilityZone
            self.port = port
            self.backupRetentionDays = backupRetentionDays
            self.identifier = identifier
            self.instanceClass = instanceClass
            self.engine = engine
            self.engineVersion = engineVersion
            self.allocatedStorageGB = allocatedStorageGB
            self.masterUsername = masterUsername
            self.masterPassword = masterPassword
            self.securityGroupIDs = securityGroupIDs
            self.tags = tags
        }
    }

    public struct Instance: Sendable, Hashable {
        public var identifier: String
        /// `creating`, `available`, `deleting`, ...
        public var status: String
        public var endpoint: String?
        public var port: Int?
        public var engine: String?
        public var engineVersion: String?
        public var instanceClass: String? = nil
        public var allocatedStorageGB: Int? = nil
        public var multiAZ: Bool = false
        public var zone: String? = nil
        public var backupRetentionDays: Int? = nil
        public var arn: String? = nil
        public var tags: [String: String] = [:]
        public var storageEncrypted = false
        public var publiclyAccessible = false
    }

    public func createInstance(_ spec: InstanceSpec) async throws(AWSError) -> Instance {
        var parameters: [(String, String)] = [
            ("DBInstanceIdentifier", spec.identifier), ("DBInstanceClass", spec.instanceClass), ("Engine", spec.engine),
            ("AllocatedStorage", String(spec.allocatedStorageGB)), ("MasterUsername", spec.masterUsername),
            // Encrypted at rest with the account's RDS key, and never given a public address.
            ("StorageEncrypted", "true"), ("PubliclyAccessible", "false"),
        ]
        if let password = spec.masterPassword {
            parameters.append(("MasterUserPassword", password))
        } else {
            parameters.append(("ManageMasterUserPassword", "true"))
        }
        if spec.multiAZ { parameters.append(("MultiAZ", "true")) }
        if let zone = spec.availabilityZone, !spec.multiAZ { parameters.append(("AvailabilityZone", zone)) }
        if let port = spec.port { parameters.append(("Port", String(port))) }
        if let days = spec.backupRetentionDays { parameters.append(("BackupRetentionPeriod", String(days))) }
        if let version = spec.engineVersion { parameters.append(("EngineVersion", version)) }
        for (index, group) in spec.securityGroupIDs.enumerated() { parameters.append(("VpcSecurityGroupIds.VpcSecurityGroupId.\(index + 1)", group)) }
        parameters += EC2Client.tagParameters(spec.tags, prefix: "Tags.Tag")
        let answer = try await client.query(.rds, action: "CreateDBInstance", version: Self.apiVersion, parameters: parameters)
        guard let instance = answer.find("DBInstance").flatMap(Self.instance) else {
            throw .invalidResponse(operation: "rds CreateDBInstance", detail: "no DBInstance in the answer")
        }
        return instance
    }

    /// The instance, or nil when it does not exist (`DBInstanceNotFound`).
    public func describeInstance(_ identifier: String) async throws(AWSError) -> Instance? {
        do {
            let answer = try await client.query(.rds, action: "DescribeDBInstances", version: Self.apiVersion, parameters: [("DBInstanceIdentifier", identifier)], idempotent: true)
            return answer.find("DBInstance").flatMap(Self.instance)
        } catch where error.code == "DBInstanceNotFound" {
            return nil
        }
    }

    /// Polls with backoff until the instance is `available`; a missing instance or a failed state stops the wait.
    public func waitUntilAvailable(_ identifier: String, timeout: Double = 1800) async throws(AWSError) -> Instance {
        var last: Instance?
        try await client.poller(timeout: timeout).until("RDS instance \(identifier) available") { () throws(AWSError) in
            guard let instance = try await describeInstance(identifier) else {
                throw .invalidResponse(operation: "rds DescribeDBInstances", detail: "instance \(identifier) does not exist")
            }
            if ["failed", "incompatible-parameters", "incompatible-restore", "storage-full"].contains(instance.status.lowercased()) {
                throw .invalidResponse(operation: "rds DescribeDBInstances", detail: "instance \(identifier) is \(instance.status)")
            }
            last = instance
            return instance.status.lowercased() == "available"
        }
        guard let last else { throw .timeout("RDS instance \(identifier) available") }
        return last
    }

    /// Deletes the instance, keeping a final snapshot when one is named. A missing instance counts as deleted.
    public func deleteInstance(_ identifier: String, finalSnapshot: String? = nil) async throws(AWSError) {
        var parameters = [("DBInstanceIdentifier", identifier)]
        if let finalSnapshot {
            parameters.append(("FinalDBSnapshotIdentifier", finalSnapshot))
        } else {
            parameters.append(("SkipFinalSnapshot", "true"))
        }
        do {
            _ = try await client.query(.rds, action: "DeleteDBInstance", version: Self.apiVersion, parameters: parameters)
        } catch where error.code == "DBInstanceNotFound" {
            return
        }
    }

    static func instance(_ node: XMLNode) -> Instance? {
        guard let identifier = node.value("DBInstanceIdentifier") else { return nil }
        return Instance(
            identifier: identifier, status: node.value("DBInstanceStatus") ?? "unknown", endpoint: node.value("Endpoint", "Address"),
            port: node.value("Endpoint", "Port").flatMap { Int($0) }, engine: node.value("Engine"), engineVersion: node.value("EngineVersion"),
            instanceClass: node.value("DBInstanceClass"), allocatedStorageGB: node.value("AllocatedStorage").flatMap { Int($0) },
            multiAZ: node.value("MultiAZ") == "true", zone: node.value("AvailabilityZone"),
            backupRetentionDays: node.value("BackupRetentionPeriod").flatMap { Int($0) }, arn: node.value("DBInstanceArn"), tags: tags(node.child("TagList")),
            storageEncrypted: node.value("StorageEncrypted") == "true", publiclyAccessible: node.value("PubliclyAccessible") == "true"
        )
    }
}
