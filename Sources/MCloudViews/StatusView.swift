import MCloudCore
import MCloudProvider

/// What `mcloud status` prints: the application's health, the clouds that could not be read, one row per cell and
/// cloud, then every reason a row is not healthy and the drift since the last apply.
public enum StatusView {
    public static func render(_ document: StatusDocument) -> String {
        var text = "Application \(document.application): \(document.verdict.health.rawValue)"
        text += document.verdict.reason.map { " (\($0))" } ?? ""
        text += "\n"
        for cloud in document.clouds where !cloud.up {
            text += "  cloud \(cloud.name) is down: \(cloud.reason ?? "no answer")\n"
        }
        guard !document.cells.isEmpty else { return text + "\nNo cells in the state.\n" }
        var rows = [["CELL", "CLOUD", "HEALTH", "READY", "DATABASE", "DR LEG", "CDN", "DRIFT"]]
        var reasons: [String] = []
        var drift: [String] = []
        var recovery: [String] = []
        for cell in document.cells {
            for site in cell.sites {
                let ready = site.replicas.map { "\($0.ready)/\($0.desired)" } ?? "-"
                let databases = site.databases.map(\.role).joined(separator: ",")
                let legs = site.backups.map(\.newest).map { $0.map { DurationText.text(document.time - $0) } ?? "empty" }.joined(separator: ",")
                rows.append([
                    cell.name, site.cloud, site.verdict.health.rawValue, ready, databases.isEmpty ? "-" : databases, legs.isEmpty ? "-" : legs,
                    site.cdn ?? "-", String(site.drift.count),
                ])
                if let reason = site.verdict.reason { reasons.append("  ! \(cell.name) in \(site.cloud): \(reason)\n") }
                for backup in site.backups {
                    let archive = backup.archived.map { ["archive's newest point \(DurationText.text(document.time - $0)) old"] } ?? []
                    let standbys = backup.standbys.map { "\($0.name) \($0.state) \($0.sync), \(Money.decimals($0.lagSeconds, places: 1)) s and \($0.lagBytes) bytes behind" }
                    if !(archive + standbys).isEmpty { recovery.append("  \(cell.name) in \(site.cloud): \((archive + standbys).joined(separator: "; "))\n") }
                }
                drift += site.drift.map { "  \(cell.name) in \(site.cloud): \($0)\n" }
            }
        }
        text += "\n" + PlacementView.table(rows, rightAligned: [3, 7])
        if !reasons.isEmpty { text += "\n" + reasons.joined() }
        if !recovery.isEmpty { text += "\nArchives and standbys, as their primaries last reported them:\n" + recovery.joined() }
        if !drift.isEmpty { text += "\nChanged outside mcloud since the last apply:\n" + drift.joined() }
        return text
    }
}
