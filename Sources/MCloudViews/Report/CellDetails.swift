import MCloudCore
import MCloudPlanner

/// One cell's box in the report: a `<details>` whose summary is the cell, its kind, where it runs and what it costs,
/// and whose body is why it went there, the clouds considered (every one that passed its filters, with its cost and
/// verdict) and every other cloud's reasons. The map's chips open it.
enum CellDetails {
    static func html(_ cell: PlacementReport.Cell, report: PlacementReport, considered: ConsideredClouds?, rejected: PlacementReport.Explanation?) -> String {
        let currency = report.cost.currency
        let cost = report.cost.byCell.first { $0.name == cell.name }?.amount ?? 0
        let id = HTML.escape(cell.name)
        var out = "<details class=\"cell\" id=\"cell-\(id)\" data-cell=\"\(id)\"><summary><span class=\"cell-name\">\(id)</span>"
        out += "<span class=\"kind \(cell.site.kind.lowercased())\">\(cell.site.kind)</span><span class=\"where\">\(HTML.escape(PlacementView.describe(cell.site)))</span>"
        out += "<span class=\"amount\">\(HTML.money(cost)) \(HTML.escape(currency))</span></summary>\n<div class=\"cell-body\">\n"
        out += "<p class=\"why\">\(HTML.escape(cell.why ?? ""))</p>\n"
        if let considered, let runnerUp = ExplainView.runnerUp(considered, site: cell.site, currency: currency) {
            out += "<p class=\"runner-up\"><b>Runner-up:</b> \(HTML.escape(runnerUp))</p>\n"
        }
        if let considered, !considered.candidates.isEmpty {
            out += table(considered, site: cell.site)
        }
        // The considered clouds' cost, capacity and DR reasons are their verdicts in the table above; what is left
        // are the filters the other clouds fail, and clouds that fail for the same reason are listed together (at
        // fifty clouds most share theirs).
        let inTable = Set(considered?.candidates.map(\.cloud) ?? [])
        var order: [String] = []
        var clouds: [String: [String]] = [:]
        for rejection in rejected?.rejected ?? [] {
            for reason in rejection.reasons where !(inTable.contains(rejection.cloud) && ["cost:", "capacity:", "dr:"].contains { reason.hasPrefix($0) }) {
                if clouds[reason] == nil { order.append(reason) }
                clouds[reason, default: []].append(rejection.cloud)
            }
        }
        if !order.isEmpty {
            out += "<p class=\"sub\">Not considered: the filters each other cloud fails</p><ul class=\"reasons\">\n"
            for reason in order.sorted(by: { (clouds[$0]?.first ?? "", $0) < (clouds[$1]?.first ?? "", $1) }) {
                let filter = String(reason.prefix { $0 != ":" })
                let names = (clouds[reason] ?? []).map(HTML.escape).joined(separator: ", ")
                out += "<li><span class=\"cloud-ref\">\(names)</span> <span class=\"filter f-\(HTML.escape(filter))\">\(HTML.escape(filter))</span> \(HTML.escape(String(reason.dropFirst(filter.count + 1)).trimmingSpaces))</li>\n"
            }
            out += "</ul>\n"
        }
        return out + "</div></details>\n"
    }

    private static func table(_ considered: ConsideredClouds, site: PlacementReport.Site) -> String {
        let isService = if case .replicas = site { true } else { false }
        var out = "<p class=\"sub\">Considered: every cloud that passes the filters, cheapest first</p>\n"
        out += "<p class=\"rules\">Residency: \(HTML.escape(considered.residency)); every cloud below meets it.</p>\n"
        out += "<table class=\"considered\"><thead><tr><th>cloud</th><th>verdict</th>"
        out += isService ? "<th class=\"num\">replicas</th><th class=\"num\">per replica</th><th class=\"num\">all here</th>" : "<th class=\"num\">monthly</th><th>backup</th>"
        out += "<th>jurisdiction</th><th>capacity</th></tr></thead><tbody>\n"
        func money(_ value: Double?) -> String { value.map(HTML.money) ?? "–" }
        for candidate in considered.candidates {
            out += "<tr class=\"v-\(candidate.verdict.rawValue)\"><td>\(HTML.escape(candidate.cloud))</td><td><span class=\"verdict\">\(candidate.verdict.rawValue)</span></td>"
            out += isService
                ? "<td class=\"num\">\(candidate.replicas ?? 0)</td><td class=\"num\">\(money(candidate.perReplica))</td><td class=\"num\">\(money(candidate.monthly))</td>"
                : "<td class=\"num\">\(money(candidate.monthly))</td><td>\(HTML.escape(candidate.backup ?? "–"))</td>"
            out += "<td>\(HTML.escape(ExplainView.tags(candidate)))</td><td>\(HTML.escape(candidate.capacity))</td></tr>\n"
        }
        return out + "</tbody></table>\n"
    }
}

extension String {
    /// Without leading and trailing spaces.
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
