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
