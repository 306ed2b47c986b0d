/// A database: a VM running the engine (DBaaS on IaaS), or the cloud's managed engine.
public struct Database: Hashable, Sendable {
    public struct Size: Hashable, Sendable {
        public var vcpu: Double
        public var memoryGiB: Double
        public var storageGiB: Double

        public init(vcpu: Double, memoryGiB: Double, storageGiB: Double) {
            self.vcpu = vcpu
            self.memoryGiB = memoryGiB
            self.storageGiB = storageGiB
        }
    }

    public struct Backup: Hashable, Sendable {
        public var schedule: String
        public var retentionDays: Int
        public var disasterRecovery: DisasterRecovery?

        public init(schedule: String, retentionDays: Int, disasterRecovery: DisasterRecovery?) {
            self.schedule = schedule
            self.retentionDays = retentionDays
            self.disasterRecovery = disasterRecovery
        }
    }

    /// A copy of the backups in another cloud, so losing one cloud does not lose the data.
    public struct DisasterRecovery: Hashable, Sendable {
        public var differentVendor: Bool
        public var changeGiBDay: Double

        public init(differentVendor: Bool = false, changeGiBDay: Double = 0) {
            self.differentVendor = differentVendor
            self.changeGiBDay = changeGiBDay
        }
    }

    public var name: String
    public var labels: [String: String]
    public var engine: String
    public var version: String
    public var scope: Scope
    public var size: Size
    public var data: [String]
    public var standbys: Int
    public var backup: Backup?
    public var location: SourceLocation

    public init(
        name: String, labels: [String: String] = [:], engine: String, version: String, scope: Scope, size: Size,
        data: [String] = [], standbys: Int = 0, backup: Backup? = nil, location: SourceLocation
    ) {
        self.name = name
        self.labels = labels
        self.engine = engine
        self.version = version
        self.scope = scope
        self.size = size
        self.data = data
        self.standbys = standbys
        self.backup = backup
        self.location = location
    }
}
