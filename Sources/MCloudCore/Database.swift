/// A database: a VM running the engine (DBaaS on IaaS), or the cloud's managed engine.
public struct Database: Hashable, Sendable {
    /// How the primary runs: on the cloud's VMs, as the cloud's managed engine, or `any`, which takes the managed
    /// engine wherever the catalog lists it under `offers.dbaas` and VMs elsewhere (docs/manifests.md).
    public enum Hosting: String, Hashable, Sendable, CaseIterable {
        case vm
        case managed
        case any
    }

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
        /// Who brings the data back when the primary's cloud is lost.
        public enum Restore: String, Hashable, Sendable, CaseIterable {
            /// `mcloud failover` loads the leg's newest dump into a new VM primary: the primary must be a VM.
            case failover
            /// Someone restores by hand: the only way back for a managed engine, whose backups stay in its cloud.
            case manual
        }

        public var differentVendor: Bool
        public var changeGiBDay: Double
        public var restore: Restore

        public init(differentVendor: Bool = false, changeGiBDay: Double = 0, restore: Restore = .failover) {
            self.differentVendor = differentVendor
            self.changeGiBDay = changeGiBDay
            self.restore = restore
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
    public var hosting: Hosting
    public var location: SourceLocation

    public init(
        name: String, labels: [String: String] = [:], engine: String, version: String, scope: Scope, size: Size,
        data: [String] = [], standbys: Int = 0, backup: Backup? = nil, hosting: Hosting = .any, location: SourceLocation
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
        self.hosting = hosting
        self.location = location
    }

    /// Whether its primary on `cloud` is the cloud's managed engine rather than VMs: the one answer the planner and
    /// the renderer share.
    public func runsManaged(on cloud: Cloud) -> Bool {
        hosting != .vm && cloud.offers.sellsManaged(engine, version: version)
    }

    /// A DR leg whose backups `mcloud failover` is to restore from (`restore: failover`, the default).
    public var restoresOnFailover: Bool {
        backup?.disasterRecovery?.restore == .failover
    }
}
