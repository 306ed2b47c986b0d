import Foundation
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
        /// What the leg's primary last wrote of its standbys; nil when it has none or wrote nothing yet.
        var replication: ReplicationStatus?
        /// A PostgreSQL primary's archive as its status object states it; nil for dumps.
        var archive: ArchiveStatus?
        /// A MariaDB primary's shipped binary log (`BinaryLogArchive`); nil when it ships none.
        var binaryLog: BinaryLogArchive.Status?

        init(
            cell: String, bucket: String, cloud: String, schedule: String?, backups: [BackupObject], replication: ReplicationStatus? = nil,
            archive: ArchiveStatus? = nil, binaryLog: BinaryLogArchive.Status? = nil, now: Int
        ) {
            self.binaryLog = binaryLog
            self.cell = cell
            self.bucket = bucket
            self.cloud = cloud
            self.schedule = schedule
            self.backups = backups
            self.replication = replication
            self.archive = archive
            interval = schedule.flatMap(CronSchedule.init).flatMap { cron in
                guard let last = cron.latestRun(atOrBefore: now), let before = cron.latestRun(atOrBefore: last - 1) else { return nil }
                return last - before
            }
        }

        /// Reads a recorded BackupBucket's backups, and the status object and replication report of the VM it backs up.
        static func read(_ bucket: ResourceState, through lister: any BackupLister, now: Int) async throws(ProviderError) -> Leg {
            var report: [UInt8]?
            var status: [UInt8]?
            var logs: [UInt8]?
            if let server = BackupHealth.Watch(bucket: bucket.attributes)?.server {
                report = try await lister.object(DatabaseUserData.replicationKey(server: server), in: bucket)
                status = try await lister.object(DatabaseUserData.statusKey(server: server), in: bucket)
                logs = try await lister.object(BinaryLogArchive.statusKey(server: server), in: bucket)
            }
            return Leg(
                cell: BackupsCommand.cellName(of: bucket), bucket: bucket.providerID, cloud: bucket.cloud, schedule: ResourceBody(bucket.attributes).string("schedule"),
                backups: BackupsView.collapsingArchives(try await lister.backups(in: bucket)),
                replication: report.flatMap { ReplicationStatus(json: String(decoding: $0, as: UTF8.self)) },
                archive: status.flatMap { ArchiveStatus(json: String(decoding: $0, as: UTF8.self)) },
                binaryLog: logs.flatMap { BinaryLogArchive.Status(json: String(decoding: $0, as: UTF8.self)) }, now: now
            )
        }

        /// Why the leg cannot be relied on at `now`: empty, its latest backup older than twice the interval, or its
        /// primary's standbys missing or behind (`ReplicationStatus`).
        func problems(now: Int) -> [String] {
            var problems: [String] = []
            if let latest = backups.last {
                if let interval, now - latest.time > 2 * interval {
                    problems.append("the latest backup is \(BackupsView.duration(now - latest.time)) old, more than twice the schedule's \(BackupsView.duration(interval))")
                }
            } else {
                problems.append("no backups in this leg yet")
            }
            return problems + (archive?.problems(now: now) ?? []) + (binaryLog?.problems ?? []) + (replication?.problems(now: now) ?? [])
        }
    }

    /// A PostgreSQL archive is hundreds of objects under `<server>/g<generation>/` (WAL segments, bundles, info
    /// files), and MariaDB's shipped logs up to thousands a day under `<server>/binlog/`: one row for each archive and
    /// each server's logs, at its newest object's time (the newest point it holds, give or take the push), with their
    /// total size; oldest first, as the lister gives them.
    static func collapsingArchives(_ backups: [BackupObject]) -> [BackupObject] {
        var archives: [String: BackupObject] = [:]
        var others: [BackupObject] = []
        for backup in backups {
            let parts = backup.key.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[1] == "binlog" || PostgreSQLArchive.repository(named: "\(parts[0])/\(parts[1])") != nil else {
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
            if let archive = leg.archive {
                let newest = archive.archivedAt.map { "newest archived point \(BackupStatus.text($0)) (\(duration(max(0, now - $0))) ago)" } ?? "nothing archived yet"
                text += "  archive \(archive.repository): \(newest)\(archive.archivedWAL.map { ", WAL \($0)" } ?? "")\n"
                if let base = archive.baseBackups.last {
                    text += "  base backups: \(archive.baseBackups.count), the newest \(base.label) (\(base.type)) at \(BackupStatus.text(base.stoppedAt))\n"
                }
                if let verification = archive.verification, verification.gaps.isEmpty, verification.error == nil {
                    text += "  verified at \(BackupStatus.text(verification.verifiedAt)): no gaps in \(verification.ranges.count) run(s) of WAL\n"
                }
            }
            if let logs = leg.binaryLog, let newest = logs.newest {
                let closed = logs.closedAt.map { ", closed \(BackupStatus.text($0)) (\(duration(max(0, now - $0))) ago)" } ?? ""
                text += "  binary log: the newest shipped \(newest)\(closed)\n"
            }
            if let replication = leg.replication {
                text += "  standbys of \(replication.server), as it saw them \(duration(max(0, now - replication.at))) ago:\n"
                var rows = [["STANDBY", "STATE", "SYNC", "LAG", "BEHIND (bytes)"]]
                for standby in replication.standbys {
                    rows.append([standby.name, standby.state, standby.sync, String(format: "%.1f s", standby.lagSeconds), String(standby.lagBytes)])
                }
                text += replication.standbys.isEmpty ? "    none connected\n" : PlacementView.table(rows, rightAligned: [3, 4])
            }
            for problem in leg.problems(now: now) { text += "  ! \(problem)\n" }
            text += "\n"
        }
        return text
    }

    /// `3d 4h`, `5h 12m`, `40m`, `12s`: the largest unit, and the next one when it is not zero.
    static func duration(_ seconds: Int) -> String { DurationText.text(seconds) }
}
