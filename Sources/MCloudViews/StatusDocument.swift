public import MCloudCore
public import MCloudProvider

/// `mcloud status`: how the application runs now, per cell and cloud, read from the state and one read-only refresh
/// of every cloud the state names. The human view, the JSON (`StatusDocument+JSON.swift`) and the Prometheus
/// exposition (`StatusMetrics`) are all drawn from this one value.
public struct StatusDocument: Sendable, Hashable {
    public static let formatVersion = "1.0"

    /// Whether a cloud answered its refresh in time.
    public struct Cloud: Sendable, Hashable {
        public var name: String
        public var up: Bool
        /// Why it is not up.
        public var reason: String?

        public init(name: String, up: Bool, reason: String? = nil) {
            self.name = name
            self.up = up
            self.reason = reason
        }
    }

    /// A database server of the cell in one cloud, as the refresh found it.
    public struct Database: Sendable, Hashable {
        /// `primary` or `standby`, as the server's body says.
        public var role: String
        public var verdict: StatusVerdict

        public init(role: String, verdict: StatusVerdict) {
            self.role = role
            self.verdict = verdict
        }
    }

    /// A DR leg's freshness: its newest backup, a PostgreSQL archive's newest point, the primary's standbys and what
    /// `BackupHealth` and the schedule say of them.
    public struct Backup: Sendable, Hashable {
        public var bucket: String
        /// UTC seconds of the newest backup; nil when the leg is empty or could not be listed.
        public var newest: Int?
        /// UTC seconds of the newest point a PostgreSQL archive holds (its last archived WAL segment); nil for dumps.
        public var archived: Int?
        /// From the primary's replication report; empty without standbys or a report.
        public var standbys: [StandbyLag]
        public var verdict: StatusVerdict

        public init(bucket: String, newest: Int?, archived: Int? = nil, standbys: [StandbyLag] = [], verdict: StatusVerdict) {
            self.bucket = bucket
            self.newest = newest
            self.archived = archived
            self.standbys = standbys
            self.verdict = verdict
        }
    }

    /// One cell in one cloud.
    public struct Site: Sendable, Hashable {
        public var cloud: String
        public var verdict: StatusVerdict
        /// The Deployment's rollout; nil where the cell runs no replicas in this cloud, or the cloud was not read.
        public var replicas: Rollout?
        public var databases: [Database]
        public var backups: [Backup]
        /// A CDN resource's state: `deployed`, `deleting`, `missing`.
        public var cdn: String?
        /// The fields changed outside mcloud since the last apply, `address: path`.
        public var drift: [String]

        public init(
            cloud: String, verdict: StatusVerdict, replicas: Rollout? = nil, databases: [Database] = [], backups: [Backup] = [], cdn: String? = nil,
            drift: [String] = []
        ) {
            self.cloud = cloud
            self.verdict = verdict
            self.replicas = replicas
            self.databases = databases
            self.backups = backups
            self.cdn = cdn
            self.drift = drift
        }
    }

    /// A placed cell (`payments-api@ru`) or a CDN, rolled up over its clouds.
    public struct Cell: Sendable, Hashable {
        public var name: String
        public var audience: String?
        /// The laws that fence the audience's data, joined by `,`; nil for none.
        public var law: String?
        public var verdict: StatusVerdict
        public var sites: [Site]

        public init(name: String, audience: String?, law: String?, sites: [Site]) {
            self.name = name
            self.audience = audience
            self.law = law
            self.sites = sites
            verdict = StatusVerdict.worst(sites.map { site in
                StatusVerdict(site.verdict.health, site.verdict.reason.map { "\(site.cloud): \($0)" })
            })
        }
    }

    public var application: String
    /// UTC seconds when the clouds were read.
    public var time: Int
    public var clouds: [Cloud]
    public var cells: [Cell]
    public var verdict: StatusVerdict

    public init(application: String, time: Int, clouds: [Cloud], cells: [Cell]) {
        self.application = application
        self.time = time
        self.clouds = clouds
        self.cells = cells
        verdict = StatusVerdict.worst(cells.map { StatusVerdict($0.verdict.health, $0.verdict.reason.map { [cell = $0.name] reason in "\(cell) in \(reason)" }) })
    }
}
