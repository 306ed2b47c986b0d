import MCloudCore
import MCloudProvider

/// The human view of a deployment plan's changes, drawn from the same JSON document `plan --json` prints: moves of
/// replicas between clouds, then each cloud's changes with Terraform's symbols and field-level diffs, then a summary.
enum ChangesView {
    enum Style: String {
        case create = "32", update = "33", delete = "31", replace = "35", emphasis = "1"
    }

    static func render(_ document: JSONValue, color: Bool) -> String {
        func paint(_ text: String, _ style: Style) -> String { color ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text }
        var out = ""
        let moves = document["placement_moves"]?.arrayItems ?? []
        if !moves.isEmpty {
            out += paint("Placement moves:", .emphasis) + "\n"
            for move in moves {
                let cell = move["cell"]?.stringValue ?? ""
                let shifts = (move["replicas"]?.objectPairs ?? []).compactMap { cloud, counts -> String? in
                    let before = counts["before"]?.intValue ?? 0
                    let after = counts["after"]?.intValue ?? 0
                    return before == after ? nil : "\(cloud) \(before) -> \(after)"
                }
                out += "  \(cell): \(shifts.joined(separator: ", "))\n"
            }
            out += "\n"
        }
        let changes = (document["resource_changes"]?.arrayItems ?? []).filter { $0["action"]?.stringValue != "no-op" }
        let byCloud = Dictionary(grouping: changes) { $0["cloud"]?.stringValue ?? "" }
        for cloud in byCloud.keys.sorted() {
            out += paint("Cloud \(cloud):", .emphasis) + "\n"
            for change in byCloud[cloud] ?? [] {
                let action = change["action"]?.stringValue ?? ""
                let style: Style = switch action {
                case "create": .create
                case "delete": .delete
                case "replace": .replace
                default: .update
                }
                let symbol = symbols[action] ?? "?"
                out += "  " + paint(symbol, style) + " " + (change["address"]?.stringValue ?? "")
                out += "  (\(change["reason"]?.stringValue ?? action))\n"
                for drift in change["drift"]?.arrayItems ?? [] {
                    out += "      ! \(drift.stringValue ?? "")\n"
                }
                if action == "update" || action == "replace" {
                    for field in FieldDiff.changes(from: nullable(change["before"]), to: nullable(change["after"])) {
                        out += "      ~ \(field.path): \(text(field.before)) -> \(text(field.after))\n"
                    }
                }
            }
            out += "\n"
        }
        out += summary(document, hasChanges: !changes.isEmpty)
        return out
    }

    static let symbols = ["create": "+", "update": "~", "replace": "-/+", "delete": "-"]

    static func summary(_ document: JSONValue, hasChanges: Bool) -> String {
        let all = document["resource_changes"]?.arrayItems.count ?? 0
        let notRefreshed = document["refreshed"] == .bool(false) ? " (not refreshed: the state stands for the clouds)" : ""
        guard hasChanges else {
            return "No changes. The clouds match the manifests: \(all) resource\(all == 1 ? "" : "s") up to date\(notRefreshed).\n"
        }
        let summary = document["summary"]
        let counts = ["create", "update", "replace", "delete"].map { "\(summary?[$0]?.intValue ?? 0) to \($0)" }
        return "Plan: \(counts.joined(separator: ", "))\(notRefreshed).\n"
    }

    private static func nullable(_ value: JSONValue?) -> JSONValue? {
        value == .null ? nil : value
    }

    private static func text(_ value: JSONValue?) -> String {
        guard let value else { return "(none)" }
        if case .string(let string) = value { return "\"\(string)\"" }
        let compact = value.serialized(pretty: false)
        return compact.count > 80 ? String(compact.prefix(77)) + "..." : compact
    }
}
