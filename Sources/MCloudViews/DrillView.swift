import MCloudCore

/// What `mcloud drill` prints: the backup restored, as the drill begins, then the verdict with its RPO and RTO.
public enum DrillView {
    /// The drill's first lines: which backup goes where.
    public static func header(_ report: DrillReport) -> String {
        let point = report.recoveryPoint
        return "Drill of \(report.cell): \(point.location.url(point.object)) from \(point.location.cloud), taken \(point.takenAt) "
            + "(\(DurationText.text(report.rpoSeconds)) ago),\n  restored into the scratch server \(report.scratchServer)\n"
    }

    /// The verdict of a drill that restored and served the data; empty for one that did not, whose failure is an error.
    public static func verdict(_ report: DrillReport) -> String {
        guard report.failure == nil, let rto = report.rtoSeconds else { return "" }
        return "\nRestore drill of \(report.cell) passed: \(report.backupSize) bytes restored and served in \(report.cloud).\n"
            + "  RPO \(DurationText.text(report.rpoSeconds)): the age of the newest backup when the drill began\n"
            + "  RTO \(DurationText.text(rto)): from making the scratch server to its engine serving the restored data\n"
    }
}
