import MCloudEngine
import MCloudProvider

/// The resource changes of a saved plan: the summary, the placement moves, then each cloud's changes with
/// Terraform's symbols and reasons, a cloud's list folded when it is long.
enum ChangesSection {
    static func html(_ document: PlanDocument) -> String {
        guard let plan = document.deployment else {
            return "<p class=\"note\">No resource changes: \(HTML.escape(document.placementOnlyNote ?? "this plan holds the placement only")).</p>\n"
        }
        let changes = plan.changes.filter { $0.action != .noOp }
        var out = "<p class=\"summary\">"
        if changes.isEmpty {
            out += "No changes: the \(plan.changes.count) resources match the manifests"
        } else {
            out += document.summary.map { "<span class=\"count a-\($0.action.rawValue)\">\($0.count) to \($0.action.rawValue)</span>" }.joined(separator: " ")
        }
        out += plan.refreshed ? "" : " <span class=\"muted\">(not refreshed: the state stands for the clouds)</span>"
        out += "</p>\n"
        if !plan.moves.isEmpty {
            out += "<p class=\"sub\">Placement moves</p><ul class=\"moves\">\n"
            for move in plan.moves { out += "<li>\(HTML.escape(move.description))</li>\n" }
            out += "</ul>\n"
        }
        let byCloud = Dictionary(grouping: changes, by: \.cloud)
        for cloud in byCloud.keys.sorted() {
            let list = byCloud[cloud] ?? []
            let counts = Dictionary(grouping: list, by: \.action).map { ($0.key, $0.value.count) }.sorted { $0.0.rawValue < $1.0.rawValue }
            out += "<details class=\"changes\"\(list.count <= 25 ? " open" : "")><summary><b>\(HTML.escape(cloud))</b> "
            out += counts.map { "<span class=\"count a-\($0.0.rawValue)\">\($0.1) \($0.0.rawValue)</span>" }.joined(separator: " ")
            out += "</summary><ul class=\"change-list\">\n"
            for change in list {
                out += "<li class=\"a-\(change.action.rawValue)\"><span class=\"symbol\">\(HTML.escape(change.action.symbol))</span> <code>\(HTML.escape(change.address.rawValue))</code> <span class=\"muted\">\(HTML.escape(change.reason))</span>"
                for drift in change.drift { out += "<div class=\"drift\">! \(HTML.escape(drift))</div>" }
                out += "</li>\n"
            }
            out += "</ul></details>\n"
        }
        return out
    }
}
