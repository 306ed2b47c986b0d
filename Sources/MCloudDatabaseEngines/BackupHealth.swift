public import MCloudCore

/// Whether a DR leg's backups still run: the status object against the schedule. A backup counts as missed when the
/// schedule fired more than `grace` before now (the run's own time) and no success is as recent as that firing.
public enum BackupHealth {
    /// Three hours for a dump and its upload to finish.
    public static let grace = 3 * 3600

    /// Why the backups of `server` look stopped, or nil when they are on time or the schedule has not fired yet.
    public static func problem(server: String, status: BackupStatus?, schedule: String, now: Int, grace: Int = grace) -> String? {
        guard let cron = CronSchedule(schedule), let due = cron.latestRun(atOrBefore: now - grace) else { return nil }
        guard let status else {
            return "backups stopped: no backup of \(server) has reported to the DR bucket (schedule \"\(schedule)\", due since \(BackupStatus.text(due)))"
        }
        if let last = status.lastSuccess, last >= due {
            // On time; a failure after it is still worth saying.
            guard let error = status.error, let attempt = status.lastAttempt, attempt > last else { return nil }
            return "the last backup of \(server) failed at \(BackupStatus.text(attempt)): \(error)"
        }
        let since = status.lastSuccess.map { "the last success was at \(BackupStatus.text($0))" } ?? "none has succeeded"
        let failure = status.error.map { ", the last attempt (\(status.lastAttempt.map(BackupStatus.text) ?? "unknown time")) failed: \($0)" } ?? ""
        return "backups stopped: \(since)\(failure); schedule \"\(schedule)\" was due at \(BackupStatus.text(due))"
    }
}

extension BackupHealth {
    /// What a BackupBucket's refresh reads: the status object its source VM writes, by the rendered body's
    /// `spec.source` (a DatabaseServer address; a managed database's backups are its cloud's) and `spec.schedule`.
    public struct Watch: Sendable, Hashable {
        public var server: String
        public var key: String
        /// The primary's replication report, which a server without standbys never writes.
        public var replicationKey: String
        public var schedule: String

        /// Nil for a bucket whose source is not a database VM, or without a schedule.
        public init?(bucket body: JSONValue) {
            let parts = body.value(at: ["spec", "source"])?.stringValue?.split(separator: ".", maxSplits: 3).map(String.init) ?? []
            guard parts.count == 4, parts[2] == "DatabaseServer", let schedule = body.value(at: ["spec", "schedule"])?.stringValue else { return nil }
            server = parts[3]
            key = DatabaseUserData.statusKey(server: server)
            replicationKey = DatabaseUserData.replicationKey(server: server)
            self.schedule = schedule
        }

        /// The warnings for the status object's and the replication report's bytes (nil: none there) at `now`: backups
        /// stopped or failing, an archive's WAL gaps, standbys missing or behind.
        public func problems(statusObject bytes: [UInt8]?, replicationObject report: [UInt8]?, now: Int) -> [String] {
            let status = bytes.flatMap { BackupStatus(json: String(decoding: $0, as: UTF8.self)) }
            var problems: [String] = []
            if bytes != nil, status == nil {
                problems.append("the backup status object \(key) is not one mcloud's backup job writes")
            } else if let problem = BackupHealth.problem(server: server, status: status, schedule: schedule, now: now) {
                problems.append(problem)
            }
            problems += bytes.flatMap { ArchiveStatus(json: String(decoding: $0, as: UTF8.self)) }?.problems(now: now) ?? []
            guard let report else { return problems }
            guard let replication = ReplicationStatus(json: String(decoding: report, as: UTF8.self)) else {
                return problems + ["the replication report \(replicationKey) is not one mcloud's report job writes"]
            }
            return problems + replication.problems(now: now)
        }
    }
}
