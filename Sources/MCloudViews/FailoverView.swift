import MCloudCore

/// What `mcloud failover` prints before its plan: what it restores, with each recovery point and its age.
public enum FailoverView {
    public static func header(_ report: FailoverReport) -> String {
        var out = "Failover off \(report.lost.joined(separator: ", ")):\n"
        if report.restores.isEmpty, report.startsEmpty.isEmpty {
            out += "  no database primary to restore\n"
        }
        for cell in report.startsEmpty {
            out += "  \(cell) starts empty in its new cloud: it has no DR leg (backup.disasterRecovery) to restore from\n"
        }
        for restore in report.restores {
            let point = restore.recoveryPoint
            out += "  \(restore.server) restores \(point.location.url(point.object)) (\(restore.backupSize) bytes) from \(point.location.cloud): "
            out += "recovery point \(point.takenAt), \(DurationText.text(restore.ageSeconds)) old\n"
        }
        return out + "\n"
    }
}
