import MCloudCore
import MCloudEngine
import MCloudProvider

/// The human view of a plan's changes: moves of replicas between clouds, then each cloud's changes with Terraform's
/// symbols and field-level diffs of the bodies as the JSON document shows them (redacted), then a summary.
public enum ChangesView {
    enum Style: String {
        case create = "32", update = "33", delete = "31", replace = "35", emphasis = "1"
    }

    public static func render(_ document: PlanDocument, color: Bool) -> String {
        func paint(_ text: String, _ style: Style) -> String { color ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text }
        guard let plan = document.deployment else {
            return paint("Placement only:", .emphasis) + " \(document.placementOnlyNote ?? "no resource changes were planned").\n"
        }
        var out = ""
        if !plan.moves.isEmpty {
            out += paint("Placement moves:", .emphasis) + "\n"
            for move in plan.moves {
                out += "  \(move.description)\n"
            }
            out += "\n"
        }
        if !plan.lost.isEmpty {
            out += paint("Lost clouds:", .emphasis) + " \(plan.lost.joined(separator: ", ")), taken as gone: nothing there is read, changed or deleted\n"
            let kept = Dictionary(grouping: plan.kept) { $0.cloud }
            for cloud in plan.lost {
                let count = kept[cloud]?.count ?? 0
                let recorded = plan.newlyLost.contains(cloud) ? "; apply records it as lost" : ""
                out += "  \(cloud): \(count) resource\(count == 1 ? "" : "s") kept in the state as they were\(recorded)\n"
            }
            out += "\n"
        }
        if !plan.recovered.isEmpty {
            out += paint("Recovered:", .emphasis) + " \(plan.recovered.joined(separator: ", ")) back: read again, what the state kept there cleaned up; apply records them as no longer lost\n\n"
        }
        let retained = plan.kept.filter { !plan.lost.contains($0.cloud) }
        if !retained.isEmpty {
            out += paint("Retained:", .emphasis) + " kept as they are, though the manifests no longer want them (a failover's restore sources; destroy deletes them)\n"
            for address in retained {
                out += "  \(address)\(plan.newlyRetained.contains(address) ? "  (apply records it as retained)" : "")\n"
            }
            out += "\n"
        }
        let changes = plan.changes.filter { $0.action != .noOp }
        let byCloud = Dictionary(grouping: changes, by: \.cloud)
        for cloud in byCloud.keys.sorted() {
            out += paint("Cloud \(cloud):", .emphasis) + "\n"
            for change in byCloud[cloud] ?? [] {
                let style: Style = switch change.action {
                case .create: .create
                case .delete: .delete
                case .replace: .replace
                case .update, .noOp: .update
                }
                out += "  " + paint(change.action.symbol, style) + " " + change.address.rawValue + "  (\(change.reason))\n"
                for drift in change.drift {
                    out += "      ! \(drift)\n"
                }
                if let point = RecoveryPointView.line(change) { out += "      <- \(point)\n" }
                if change.action == .update || change.action == .replace {
                    let shown = PlanDocument.shown(change)
                    for field in FieldDiff.changes(from: shown.before, to: shown.after) {
                        out += "      ~ \(field.path): \(text(field.before)) -> \(text(field.after))\n"
                    }
                }
            }
            out += "\n"
        }
        out += summary(document, plan, hasChanges: !changes.isEmpty || !plan.newlyLost.isEmpty || !plan.newlyRetained.isEmpty || !plan.recovered.isEmpty)
        return out
    }

    static func summary(_ document: PlanDocument, _ plan: DeploymentPlan, hasChanges: Bool) -> String {
        let all = plan.changes.count
        let notRefreshed = plan.refreshed ? "" : " (not refreshed: the state stands for the clouds)"
        guard hasChanges else {
            return "No changes. The clouds match the manifests: \(all) resource\(all == 1 ? "" : "s") up to date\(notRefreshed).\n"
        }
        let counts = document.summary.map { "\($0.count) to \($0.action.rawValue)" }
        return "Plan: \(counts.joined(separator: ", "))\(notRefreshed).\n"
    }

    private static func text(_ value: JSONValue?) -> String {
        guard let value else { return "(none)" }
        if case .string(let string) = value { return "\"\(string)\"" }
        let compact = value.serialized(pretty: false)
        return compact.count > 80 ? String(compact.prefix(77)) + "..." : compact
    }
}
