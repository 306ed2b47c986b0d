import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider
import MCloudViews

/// `mcloud backups`: each DR leg's backups (time, size, SHA-256, age) and whether the latest is too old, that is
/// older than twice the schedule's interval. In the command line, not MCloudViews: the times and the schedule are
/// the engine catalog's.
enum BackupsView {
    struct Leg: Sendable, Hashable {
        var cell: String
        var bucket: String
        var cloud: String
        var schedule: String?
        /// Seconds between the schedule's last two runs; nil without a schedule cron can read.
        var interval: Int?
        /// Oldest first.
        var backups: [BackupObject]

        init(cell: String, bucket: String, cloud: String, schedule: String?, backups: [BackupObject], now: Int) {
            self.cell = cell
            self.bucket = bucket
            self.cloud = cloud
            self.schedule = schedule
            self.backups = backups
            interval = schedule.flatMap(CronSchedule.init).flatMap { cron in
                guard let last = cron.latestRun(atOrBefore: now), let before = cron.latestRun(atOrBefore: last - 1) else { return nil }
                return last - before
            }
        }

        /// Why the leg cannot be relied on at `now`: empty, or its latest backup older than twice the interval.
        func problem(now: Int) -> String? {
            guard let latest = backups.last else { return "no backups in this leg yet" }
            guard let interval, now - latest.time > 2 * interval else { return nil }
            return "the latest backup is \(BackupsView.duration(now - latest.time)) old, more than twice the schedule's \(BackupsView.duration(interval))"
        }
    }

    /// A PostgreSQL archive is hundreds of objects under `<server>/g<generation>/` (WAL segments, bundles, info
    /// files): one row for each archive, at its newest object's time (the newest point it holds, give or take the
    /// push), with their total size; oldest first, as the lister gives them.
    static func collapsingArchives(_ backups: [BackupObject]) -> [BackupObject] {
        var archives: [String: BackupObject] = [:]
        var others: [BackupObject] = []
        for backup in backups {
            let parts = backup.key.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, PostgreSQLArchive.repository(named: "\(parts[0])/\(parts[1])") != nil else {
                others.append(backup)
                continue
            }
            let repository = "\(parts[0])/\(parts[1])/"
            var row = archives[repository] ?? BackupObject(key: repository, time: backup.time, size: 0, sha256: nil)
            row.time = max(row.time, backup.time)
            row.size += backup.size
            archives[repository] = row
        }
        return (others + archives.values).sorted { ($0.time, $0.key) < ($1.time, $1.key) }
    }

    static func render(_ legs: [Leg], now: Int) -> String {
        guard !legs.isEmpty else { return "No DR legs in the state.\n" }
        var text = ""
        for leg in legs {
            let schedule = leg.schedule.map { ", schedule \"\($0)\"" + (leg.interval.map { " (every \(duration($0)))" } ?? "") } ?? ""
            text += "\(leg.cell): bucket \(leg.bucket) in \(leg.cloud)\(schedule)\n"
            if !leg.backups.isEmpty {
                var rows = [["TIME", "SIZE", "SHA-256", "AGE", "OBJECT"]]
                for backup in leg.backups.reversed() {
                    rows.append([BackupStatus.text(backup.time), String(backup.size), backup.sha256.map { String($0.prefix(12)) } ?? "-", duration(now - backup.time), backup.key])
                }
                text += PlacementView.table(rows, rightAligned: [1, 3])
            }
            if let problem = leg.problem(now: now) { text += "  ! \(problem)\n" }
            text += "\n"
        }
        return text
    }

    /// `3d 4h`, `5h 12m`, `40m`, `12s`: the largest unit, and the next one when it is not zero.
    static func duration(_ seconds: Int) -> String { DurationText.text(seconds) }
}
