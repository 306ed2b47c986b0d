import MCloudCore
import MCloudProvider

/// The status in Prometheus' text exposition format (version 0.0.4), for node_exporter's textfile collector: gauges
/// named by Prometheus' conventions, one `mcloud_cell_health` series per state as kube-state-metrics does, and the
/// labels `application`, `cell`, `audience`, `cloud` and `law` (docs/status.md).
public enum StatusMetrics {
    private struct Family {
        var name: String
        var help: String
        var samples: [(labels: [(String, String)], value: String)] = []
    }

    public static func exposition(_ document: StatusDocument) -> String {
        let application = ("application", document.application)
        var up = Family(name: "mcloud_cloud_up", help: "Whether the cloud answered the status refresh in time (1) or not (0).")
        for cloud in document.clouds { up.samples.append(([application, ("cloud", cloud.name)], cloud.up ? "1" : "0")) }
        var desired = Family(name: "mcloud_cell_replicas_desired", help: "Replicas the cell's Deployment asks for in the cloud.")
        var ready = Family(name: "mcloud_cell_replicas_ready", help: "Replicas of the cell ready in the cloud.")
        var health = Family(name: "mcloud_cell_health", help: "The cell's health in the cloud: 1 for its state, 0 for the others.")
        var age = Family(name: "mcloud_backup_newest_age_seconds", help: "Age of the newest backup in the cell's DR leg.")
        var archived = Family(
            name: "mcloud_backup_archive_newest_age_seconds", help: "Age of the newest point a PostgreSQL primary's WAL archive holds in its DR leg (grows on an idle server)."
        )
        var lag = Family(name: "mcloud_database_replication_lag_seconds", help: "How far a standby's replay trails its primary, as the primary last reported it.")
        var behind = Family(name: "mcloud_database_replication_lag_bytes", help: "Bytes of the primary's log a standby has not replayed, as the primary last reported it.")
        for cell in document.cells {
            for site in cell.sites {
                let labels = [application, ("cell", cell.name), ("audience", cell.audience ?? ""), ("cloud", site.cloud), ("law", cell.law ?? "")]
                if let replicas = site.replicas {
                    desired.samples.append((labels, String(replicas.desired)))
                    ready.samples.append((labels, String(replicas.ready)))
                }
                for state in StatusHealth.allCases {
                    health.samples.append((labels + [("state", state.rawValue)], site.verdict.health == state ? "1" : "0"))
                }
                for backup in site.backups {
                    let leg = labels + [("bucket", backup.bucket)]
                    if let newest = backup.newest { age.samples.append((leg, String(document.time - newest))) }
                    if let point = backup.archived { archived.samples.append((leg, String(document.time - point))) }
                    for standby in backup.standbys {
                        let labelled = leg + [("standby", standby.name), ("sync", standby.sync)]
                        lag.samples.append((labelled, number(standby.lagSeconds)))
                        behind.samples.append((labelled, String(standby.lagBytes)))
                    }
                }
            }
        }
        return [up, desired, ready, health, age, archived, lag, behind].map(text).joined()
    }

    private static func text(_ family: Family) -> String {
        var text = "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) gauge\n"
        for sample in family.samples {
            let labels = sample.labels.map { "\($0.0)=\"\(escaped($0.1))\"" }.joined(separator: ",")
            text += "\(family.name){\(labels)} \(sample.value)\n"
        }
        return text
    }

    /// A sample value: whole seconds without a fraction, else as Swift prints a Double (Prometheus reads both).
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// A label value as the format requires: backslash, double quote and line feed escaped.
    static func escaped(_ value: String) -> String {
        var text = ""
        for character in value {
            switch character {
            case "\\": text += "\\\\"
            case "\"": text += "\\\""
            case "\n": text += "\\n"
            default: text.append(character)
            }
        }
        return text
    }
}
