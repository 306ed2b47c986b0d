public import MCloudAWS
public import MCloudCore
public import MCloudProvider
import Foundation
import MCloudDatabaseEngines
public import MCloudHTTP

/// The engine's provider for one AWS region. Every resource carries mcloud's tags (managed-by, application, cell,
/// cloud, address, the digest of its body), so refresh finds them with one listing per service and a lost create
/// answer is recovered by looking the resource up before sending again. See docs/aws.md for how each kind maps.
public struct AWSResourceProvider: ResourceProvider {
    public let name = ProviderName.aws
    public let cloud: String
    let settings: Settings
    private let sessions: OnFirstUse<AWSSession, ProviderError>

    /// What the catalog and the environment say beyond credentials.
    public struct Settings: Sendable {
        /// `MCLOUD_AWS_INSTANCE_PROFILE`: the IAM instance profile database VMs back up with (no keys on the VM).
        public var instanceProfile: String?
        /// `MCLOUD_AWS_CLUSTER_CIDR_<CLOUD>` (the cloud name upper-cased, `-` as `_`): where a cluster's traffic
        /// comes from. A cluster in this provider's own cloud defaults to the default VPC's block.
        public var clusterCIDRs: [String: String]
        /// How long creates and deletes wait for the cloud.
        public var timeout: Double
        /// Where the keys of a DR bucket outside AWS come from (the AWS chain, as for the bucket itself).
        public var environment: [String: String]
        /// Turns an RDS instance's endpoint into the addresses it reports.
        public var resolver: HostResolver

        public init(
            instanceProfile: String? = nil, clusterCIDRs: [String: String] = [:], timeout: Double = 1800,
            environment: [String: String] = [:], resolver: HostResolver = .system
        ) {
            self.resolver = resolver
            self.environment = environment
            self.instanceProfile = instanceProfile
            self.clusterCIDRs = clusterCIDRs
            self.timeout = timeout
        }

        public init(environment: [String: String], cloud: String) {
            var cidrs: [String: String] = [:]
            for (key, value) in environment where key.hasPrefix("MCLOUD_AWS_CLUSTER_CIDR_") && !value.isEmpty {
                cidrs[String(key.dropFirst("MCLOUD_AWS_CLUSTER_CIDR_".count))] = value
            }
            self.init(
                instanceProfile: environment["MCLOUD_AWS_INSTANCE_PROFILE"], clusterCIDRs: cidrs,
                environment: environment
            )
        }

        func clusterCIDR(_ cloud: String) -> String? {
            clusterCIDRs[cloud.uppercased().replacingOccurrences(of: "-", with: "_")]
        }
    }

    /// `connect` makes the client on first use, so a plan that reads nothing from this region needs no credentials.
    public init(cloud: String, settings: Settings = Settings(), connect: @escaping @Sendable () throws(ProviderError) -> AWSClient) {
        self.cloud = cloud
        self.settings = settings
        sessions = OnFirstUse { () throws(ProviderError) in AWSSession(client: try connect()) }
    }

    func session() async throws(ProviderError) -> AWSSession { try await sessions.value() }

    public func refresh(application: String, desired: [DesiredResource], recorded: [ResourceState]) async throws(ProviderError) -> [ObservedResource] {
        let session = try await session()
        let filter = [AWSTag.managedBy: ResourceLabels.manager, ResourceLabels.CloudTag.application: application, AWSTag.cloud: cloud]
        let inventory = try await Self.attempt("listing \(application)'s resources in \(cloud)") { () throws(AWSError) in
            try await AWSInventory.read(session, tags: filter)
        }
        let known = ReadBack(desired: desired, recorded: recorded)
        var endpoints: [String: [String]] = [:]
        for database in inventory.databases {
            if let host = database.endpoint { endpoints[database.identifier] = await settings.resolver.ipv4Addresses(host) }
        }
        var observed = inventory.observed(known, endpoints: endpoints)
        // A DR leg whose VM's backups stopped, or whose standbys do not follow: what the VM writes into the bucket.
        for index in observed.indices where observed[index].attributes.value(at: ["kind"])?.stringValue == ResourceKind.backupBucket.rawValue {
            guard let watch = BackupHealth.Watch(bucket: observed[index].attributes) else { continue }
            let bucket = observed[index].providerID
            let status = try await Self.attempt("reading \(watch.key) in bucket \(bucket)") { () throws(AWSError) in
                try await session.s3.objectIfExists(bucket: bucket, key: watch.key)
            }
            let report = try await Self.attempt("reading \(watch.replicationKey) in bucket \(bucket)") { () throws(AWSError) in
                try await session.s3.objectIfExists(bucket: bucket, key: watch.replicationKey)
            }
            observed[index].warnings += watch.problems(statusObject: status, replicationObject: report, now: session.client.clock.nowSeconds)
        }
        return observed.sorted { $0.address < $1.address }
    }

    /// Fields AWS cannot change on a live resource.
    public func replacementReasons(desired: DesiredResource, current: JSONValue) -> [String] {
        let immutable: [ResourceKind: [[String]]] = [
            // The image, the backup settings and their keys are in the user data, which EC2 sets at launch only.
            .databaseServer: [
                ["spec", "engine"], ["spec", "version"], ["spec", "zone"], ["spec", "volume"], ["spec", "securityGroup"], ["spec", "image"], ResourceBody.backupPath,
            ],
            .volume: [["spec", "zone"]],
            .backupBucket: [["spec", "bucketName"]],
            .backupIdentity: [["spec", "userName"]],
            .managedDatabase: [["spec", "engine"], ["spec", "zones"], ["spec", "securityGroup"]],
        ]
        var reasons = (immutable[desired.type] ?? []).compactMap { path -> String? in
            let wanted = desired.body.value(at: path)
            let now = current.value(at: path)
            guard let wanted, let now, !FieldDiff.same(wanted, now) else { return nil }
            return "\(path.joined(separator: ".")) cannot change on a \(desired.type)"
        }
        let shrinking: [ResourceKind: [String]] = [.volume: ["spec", "sizeGiB"], .managedDatabase: ["spec", "size", "storageGiB"]]
        if let path = shrinking[desired.type], let wanted = desired.body.value(at: path)?.doubleValue, let now = current.value(at: path)?.doubleValue,
            wanted < now
        {
            reasons.append("\(path.joined(separator: ".")) cannot shrink on a \(desired.type) (\(Self.format(now)) -> \(Self.format(wanted)))")
        }
        if desired.type == .databaseServer {
            reasons += ResourceBody(desired.body).userDataChanges(from: ResourceBody(current))
        }
        if desired.type == .managedDatabase, let wanted = ResourceBody(desired.body).string("version"),
            let now = ResourceBody(current).string("version"), Self.majorVersion(wanted).lexicographicallyPrecedes(Self.majorVersion(now))
        {
            reasons.append("spec.version cannot go down on a ManagedDatabase (\(now) -> \(wanted))")
        }
        return reasons
    }

    /// A database server whose clients need derived secrets cannot be made without the operator's age identity.
    public func problems(desired: DesiredResource) -> [String] {
        guard desired.type == .databaseServer else { return [] }
        let body = ResourceBody(desired.body)
        return ServerAccess.problems(engine: body.string("engine") ?? "", access: body.databaseAccess, replication: body.replication, environment: settings.environment)
            + PostgreSQLArchive.problems(engine: body.string("engine") ?? "", backup: body.backup, environment: settings.environment)
            + DumpEncryption.problems(engine: body.string("engine") ?? "", backup: body.backup, environment: settings.environment)
            + (userDataProblem(body).map { [$0] } ?? [])
    }

    public func create(_ resource: DesiredResource) async throws(ProviderError) -> ObservedResource {
        try await apply(resource)
    }

    public func update(_ resource: DesiredResource, recorded: ResourceState) async throws(ProviderError) -> ObservedResource {
        try await apply(resource)
    }

    /// Creating and updating both converge: find the resource by its tags or name, make it if missing, then set what
    /// differs. So a create after a lost answer takes over what the first attempt made.
    private func apply(_ resource: DesiredResource) async throws(ProviderError) -> ObservedResource {
        let session = try await session()
        // The engine names the address in front of the error; the operation is the provider's to say.
        return try await Self.attempt("apply") { () throws(AWSError) in
            switch resource.type {
            case .securityGroup: return try await applySecurityGroup(resource, session)
            case .volume: return try await applyVolume(resource, session)
            case .databaseServer: return try await applyDatabaseServer(resource, session)
            case .managedDatabase: return try await applyManagedDatabase(resource, session)
            case .backupSchedule: return try await applyBackupSchedule(resource, session)
            case .backupBucket: return try await applyBackupBucket(resource, session)
            case .backupIdentity: return try await applyBackupIdentity(resource, session)
            default: throw .configuration("the aws provider has no kind \(resource.type)")
            }
        }
    }

    public func delete(_ resource: ResourceState) async throws(ProviderError) {
        let session = try await session()
        let kind = ResourceKind(resource.attributes["kind"]?.stringValue ?? "")
        try await Self.attempt("delete") { () throws(AWSError) in
            switch kind {
            case .securityGroup: try await deleteSecurityGroup(resource, session)
            case .volume: try await deleteVolume(resource, session)
            case .databaseServer: try await deleteDatabaseServer(resource, session)
            case .managedDatabase: try await deleteManagedDatabase(resource, session)
            case .backupSchedule: try await deleteBackupSchedule(resource, session)
            case .backupBucket: try await deleteBackupBucket(resource, session)
            case .backupIdentity: try await deleteBackupIdentity(resource, session)
            default: throw .configuration("the state does not say which kind \(resource.address) is")
            }
        }
    }

    /// Runs one operation, naming `what` in the error.
    static func attempt<T>(_ what: String, _ body: () async throws(AWSError) -> T) async throws(ProviderError) -> T {
        do throws(AWSError) {
            return try await body()
        } catch {
            throw providerError(error, what: what)
        }
    }

    /// Quota and capacity errors, refused credentials, and everything else in AWS's words.
    static func providerError(_ error: AWSError, what: String) -> ProviderError {
        let capacity: Set<String> = [
            "InstanceLimitExceeded", "InsufficientInstanceCapacity", "VcpuLimitExceeded", "VolumeLimitExceeded", "MaxIOPSLimitExceeded",
            "ResourceLimitExceeded", "SecurityGroupLimitExceeded", "RulesPerSecurityGroupLimitExceeded", "InstanceQuotaExceeded",
            "StorageQuotaExceeded", "InsufficientDBInstanceCapacity", "DBInstanceQuotaExceeded", "TooManyBuckets", "InsufficientStorageClusterCapacity",
        ]
        let unauthorized: Set<String> = [
            "AuthFailure", "UnauthorizedOperation", "InvalidClientTokenId", "SignatureDoesNotMatch", "AccessDenied", "InvalidAccessKeyId",
            "ExpiredToken", "IncompleteSignature", "OptInRequired",
        ]
        let message = "\(what): \(error.description)"
        if case .configuration = error { return ProviderError(.unavailable, message) }
        if let code = error.code, capacity.contains(code) { return ProviderError(.capacity, message) }
        if let code = error.code, unauthorized.contains(code) { return ProviderError(.unauthorized, message) }
        if error.status == 401 { return ProviderError(.unauthorized, message) }
        return ProviderError(.failed, message)
    }

    /// Makes a resource once: a lost answer (a dropped connection, a 5xx) may hide a success, so before sending
    /// again the resource is looked up by its tags, within the client's retry budget. Throttling is retried by the
    /// client itself, since AWS ran nothing.
    static func createOnce<T>(
        _ session: AWSSession, find: () async throws(AWSError) -> T?, create: () async throws(AWSError) -> T
    ) async throws(AWSError) -> T {
        if let found = try await find() { return found }
        let policy = session.client.retryPolicy
        let end = policy.deadline(from: .now)
        var waited = 0.0
        var attempt = 1
        while true {
            do throws(AWSError) {
                return try await create()
            } catch where outcomeUnknown(error) {
                let delay = min(policy.maxDelay, policy.baseDelay * pow(2, Double(attempt - 1))) * session.client.jitter()
                guard attempt < policy.maxAttempts, waited + delay <= policy.budget, delay < RetryPolicy.secondsLeft(until: end) else { throw error }
                do throws(HTTPError) {
                    try await session.client.sleeper.sleep(seconds: delay)
                } catch {
                    throw .transport(operation: "waiting to retry", error)
                }
                waited += delay
                attempt += 1
                if let found = try await find() { return found }
            }
        }
    }

    /// Whether AWS may have done what a failed request asked: the request went out and no readable answer came.
    static func outcomeUnknown(_ error: AWSError) -> Bool {
        switch error {
        case .transport(_, let failure):
            switch failure {
            case .connection, .timeout, .stalled, .tooLarge, .retriesExhausted: return true
            case .invalidRequest, .tls, .cancelled: return false
            }
        case .invalidResponse: return true
        case .service(let service): return [500, 502, 503, 504].contains(service.status)
        case .unexpectedAnswer(_, let status, _): return [500, 502, 503, 504].contains(status)
        default: return false
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    static func majorVersion(_ version: String) -> [Int] {
        version.split(separator: ".").map { Int($0) ?? 0 }
    }
}

/// The clients of one region, made on first use.
struct AWSSession: Sendable {
    let client: AWSClient
    let ec2: EC2Client
    let rds: RDSClient
    let s3: S3Client
    let iam: IAMClient

    init(client: AWSClient) {
        iam = IAMClient(client: client)
        self.client = client
        ec2 = EC2Client(client: client)
        rds = RDSClient(client: client)
        s3 = S3Client(client: client)
    }
}
