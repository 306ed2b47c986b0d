/// How one engine series runs on one image family: where it installs from, what it is called, where its data lives
/// on the data disk, and the shell steps that configure it, tell whether it answers, dump it consistently and restore
/// a dump. `DatabaseUserData` turns it into cloud-init. Every step runs as root under `bash -euo pipefail` with
/// `$PORT` set; `dump` writes the file `$OUT`, `restore` reads `$IN`.
public struct Recipe: Sendable, Hashable {
    public enum Source: Sendable, Hashable {
        /// The image's own distribution: its package has the series.
        case distribution
        case vendor(VendorRepository)
    }

    /// How a standby follows its primary: how far behind it may be, and the steps that make it follow.
    public struct Replication: Sendable, Hashable {
        public enum Mode: String, Sendable, Hashable {
            /// A commit on the primary returns once a standby has it: nothing acknowledged is lost inside the cloud.
            case synchronous
            /// A commit on the primary waits for a standby's acknowledgement up to a timeout, then returns without it:
            /// nothing acknowledged is lost while a standby keeps up; while none does, as asynchronous.
            case semisynchronous
            /// A standby trails the primary: what it has not received when the primary is lost is lost.
            case asynchronous
        }

        public var mode: Mode
        /// On a standby, instead of `secure`, once the engine first answers: its TLS files in place, its data taken
        /// from the primary (waiting for it to answer), then following it. Reads the files `AccessFiles` writes.
        public var follow: [String]
        /// On the primary, `mcloud-engine replicas`: one tab-separated line per standby connected now, `name state
        /// sync lag-seconds lag-bytes`, which `ReplicationReport` publishes; empty when the engine cannot tell.
        public var report: [String]
        /// The first half of a switchover (docs/databases.md, "Switchover"), `mcloud-engine demote` on the primary:
        /// stops it so that its standbys have everything it committed, prints on stdout, as its only output, the
        /// position a standby must have replayed past to have it all (PostgreSQL: the shutdown checkpoint's LSN), then
        /// starts it as a standby of the new primary. Reads `MCLOUD_MEMBER_NAME` (its name as a standby, `standby_0`),
        /// `MCLOUD_PRIMARY_HOST` and `MCLOUD_PRIMARY_PORT` (the new primary's server name, a name of its certificate,
        /// and port) and optionally `MCLOUD_PRIMARY_ADDRESS` (where that name is reached) from its environment, never
        /// from the settings. Exits non-zero and changes nothing on a server that is not a primary. Empty when the
        /// engine cannot switch over: the step then says so and exits 1.
        public var demote: [String]
        /// The second half, `mcloud-engine promote` on the chosen standby: waits, bounded, until it has replayed past
        /// `MCLOUD_SWITCHOVER_LSN` (demote's output), exiting non-zero without promoting when it does not, then makes
        /// itself the primary of `MCLOUD_MEMBERS` (the space-separated names of the cell's other members, each a
        /// standby of it now), a commit waiting for one of them as on the first primary. Exits non-zero and changes
        /// nothing on a server that is not a standby. Empty when the engine cannot switch over, as `demote`.
        public var promote: [String]
        /// The part of the cell's other standbys, `mcloud-engine repoint` once the target has promoted: follows the
        /// new primary (`MCLOUD_PRIMARY_HOST`, `MCLOUD_PRIMARY_PORT`, optionally `MCLOUD_PRIMARY_ADDRESS`, as `demote`
        /// reads them) as `MCLOUD_MEMBER_NAME`, and exits once it streams from it. Exits non-zero and changes nothing
        /// on a server that is not a standby. Empty when the engine cannot switch over, as `demote`.
        public var repoint: [String]

        public init(mode: Mode, follow: [String], report: [String] = [], demote: [String] = [], promote: [String] = [], repoint: [String] = []) {
            self.mode = mode
            self.follow = follow
            self.report = report
            self.demote = demote
            self.promote = promote
            self.repoint = repoint
        }
    }

    /// How a primary's own change log reaches the DR leg between dumps (`BinaryLogArchive`), and is replayed after one.
    public struct LogArchive: Sendable, Hashable {
        /// `mcloud-engine close-log`: closes the log being written when a change went in since the last close, then
        /// prints each closed log's path, oldest first.
        public var close: [String]
        /// `mcloud-engine log-position`: where in the log the dump `$IN` stands, `FILE POSITION`; nothing for a dump
        /// that does not say.
        public var position: [String]
        /// `mcloud-engine replay-log`: replays the logs `$LOGS` (paths, oldest first) from `$LOG_START` in the first,
        /// up to `$STOP_AT` (`YYYY-MM-DD HH:MM:SS`, UTC) when it is set.
        public var replay: [String]

        public init(close: [String], position: [String], replay: [String]) {
            self.close = close
            self.position = position
            self.replay = replay
        }
    }

    /// What shows that the recipe works.
    public enum Proof: String, Sendable, Hashable {
        /// Booted on the container bed from the provider's user data, backed up to the S3 bed and restored.
        case bed
        /// Its user data passes cloud-init's schema, shellcheck and bash -n, and a vendor repository is pinned to the
        /// vendor's documentation: the bed has only Debian 12's packages and cannot reach a vendor.
        case checks
    }

    public var engine: Engine
    /// The version a manifest names, `15` or `10.11`: `15` and `15.4` both ask for it.
    public var series: String
    public var family: ImageFamily
    public var source: Source
    public var packages: [String]
    public var service: String
    /// Where the data disk is mounted, before the packages install, so that their first initialisation lands on it.
    public var mountPoint: String
    /// Where the engine keeps its data: the mount point or a folder below it.
    public var dataDirectory: String
    /// Before the install, after the disk is mounted: configuration the package's own setup must already see.
    public var prepare: [String]
    /// After the install: the port, the data directory, the service started.
    public var configure: [String]
    /// After the engine answers, when the server has clients (`ServerAccess`): TLS on with the server's certificate,
    /// remote clients only over TLS with their password, each user limited to its own database; reads the files
    /// `AccessFiles` writes. Empty for engines that make no users yet.
    public var secure: [String]
    /// Succeeds once the engine answers on `$PORT`.
    public var ready: String
    /// A consistent dump to `$OUT`.
    public var dump: String
    /// Loads the dump `$IN` into the running engine.
    public var restore: String
    /// The dump file's extension, `sql.gz`.
    public var dumpExtension: String
    public var proof: Proof
    /// How its standbys replicate; nil where they cannot yet, and `standbys` is refused at plan time.
    public var replication: Replication?
    /// Its change log shipped between dumps; nil where only the dumps reach the leg.
    public var logArchive: LogArchive?

    public init(
        engine: Engine, series: String, family: ImageFamily, source: Source, packages: [String], service: String, mountPoint: String,
        dataDirectory: String, prepare: [String] = [], configure: [String], secure: [String] = [], ready: String, dump: String, restore: String,
        dumpExtension: String, proof: Proof, replication: Replication? = nil, logArchive: LogArchive? = nil
    ) {
        self.replication = replication
        self.logArchive = logArchive
        self.engine = engine
        self.series = series
        self.family = family
        self.source = source
        self.packages = packages
        self.service = service
        self.mountPoint = mountPoint
        self.dataDirectory = dataDirectory
        self.prepare = prepare
        self.configure = configure
        self.secure = secure
        self.ready = ready
        self.dump = dump
        self.restore = restore
        self.dumpExtension = dumpExtension
        self.proof = proof
    }

    /// Whether a manifest's `spec.version` asks for this series: `16` and `16.4` for `16`, not `160`.
    public func covers(_ version: String) -> Bool {
        version == series || version.hasPrefix(series + ".")
    }

    /// Whether a standby of this recipe replicates from its primary.
    public var replicates: Bool { replication != nil }

    public var repository: VendorRepository? {
        if case .vendor(let repository) = source { return repository }
        return nil
    }
}

extension Recipe: CustomStringConvertible {
    /// `postgresql 15 on debian-12`.
    public var description: String { "\(engine.rawValue) \(series) on \(family.rawValue)" }
}
