import MCloudCore
import MCloudPlanner

/// `mcloud report`: the plan document as one self-contained HTML page (its style, script and drawings inline, so it
/// opens from a file with no network): the key figures, the placement map, the cost of each cloud, the laws that
/// fence each audience's data, every cell with its reasons and the clouds considered, and the resource changes of a
/// saved plan; with a status (`report --status`), the live health at the top and on the map (`StatusSection`).
/// Deterministic: the same document, setting and status give the same bytes.
public enum PlanReport {
    public static func html(_ document: PlanDocument, setting: ReportSetting, status: StatusDocument? = nil) -> String {
        let report = document.placement ?? PlacementReport(cells: [], cdns: [], cost: .init(currency: "", monthly: 0, byCloud: [], byCell: [], byCDN: [], lowerBound: 0, gap: 0), explanations: [])
        let map = PlacementMap(report: report, setting: setting, status: status)
        let title = "\(document.application): placement plan"
        var page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        page += "<title>\(HTML.escape(title))</title>\n<style>\n\(ReportAssets.css)\n\(status == nil ? "" : StatusSection.css + "\n")</style>\n</head>\n<body>\n"
        page += header(document, report: report, setting: setting)
        page += "<main>\n"
        page += status.map(StatusSection.html) ?? ""
        page += mapSection(map, setting: setting)
        page += costSection(report, map: map)
        page += residencySection(setting)
        page += cellsSection(report, map: map, setting: setting)
        page += "<section id=\"changes\"><h2>Resource changes</h2>\n\(ChangesSection.html(document))</section>\n"
        page += "</main>\n<footer>Drawn by mcloud from \(HTML.escape(setting.source)). One file: its style, script and drawings are inline, and it loads nothing from a network.</footer>\n"
        page += "<aside id=\"inspector\" hidden><button class=\"close\" id=\"inspector-close\" aria-label=\"Close\">×</button><h3 id=\"inspector-title\"></h3><div id=\"inspector-body\"></div></aside>\n"
        page += "<script>\n\(ReportAssets.script)\n</script>\n</body>\n</html>\n"
        return page
    }

    private static func header(_ document: PlanDocument, report: PlacementReport, setting: ReportSetting) -> String {
        let cost = report.cost
        let services = report.cells.filter { if case .replicas = $0.site { true } else { false } }.count
        let used = Set(cost.byCloud.filter { $0.amount > 0 }.map(\.name)).count
        var out = "<header class=\"top\"><h1>\(HTML.escape(document.application)) <span class=\"kind\">placement plan</span></h1>\n"
        out += "<div class=\"source\">\(HTML.escape(setting.source))</div>\n<div class=\"cards\">\n"
        func card(_ label: String, _ value: String, _ hint: String) {
            out += "<div class=\"card\"><div class=\"label\">\(label)</div><div class=\"value\">\(value)</div><div class=\"hint\">\(hint)</div></div>\n"
        }
        card("Monthly cost", "\(HTML.money(cost.monthly)) \(HTML.escape(cost.currency))", "every cell, backup leg and CDN")
        card("Lower bound", "\(HTML.money(cost.lowerBound))", "within \(Money.decimals(cost.gap * 100, places: 2))% of the cheapest possible")
        card("Cells", "\(report.cells.count)", "\(services) service, \(report.cells.count - services) database, \(report.cdns.count) CDN")
        card("Clouds used", "\(used) of \(setting.clouds.count)", "\(Set(setting.clouds.filter { c in cost.byCloud.contains { $0.name == c.name && $0.amount > 0 } }.map(\.vendor)).count) vendors")
        card("Audiences", "\(setting.audiences.count)", HTML.escape(setting.audiences.map { "\($0.name) (\($0.jurisdiction))" }.joined(separator: ", ")))
        return out + "</div></header>\n"
    }

    private static func mapSection(_ map: PlacementMap, setting: ReportSetting) -> String {
        var out = "<section id=\"map\"><h2>Where everything runs</h2>\n"
        out += "<p class=\"lead\">Each chip is a cell in a cloud where it runs: a service with its replicas there, a database's primary with the cloud of its DR backup leg, the backup leg itself, a CDN. A rail runs down from each audience with a branch into every cloud its cells use, thicker for more cells; dashed arrows are DR legs, from a primary's cloud to its backup's. Click a chip for its reasons and the clouds considered.</p>\n"
        out += "<div class=\"toolbar\"><input id=\"filter\" type=\"search\" placeholder=\"Filter cells, e.g. payments\" aria-label=\"Filter cells\">"
        for audience in map.audiences {
            out += "<button type=\"button\" data-focus=\"\(HTML.escape(audience.key))\" aria-pressed=\"false\" style=\"--c:\(audience.color)\"><span class=\"dot\"></span>\(HTML.escape(audience.title))</button>"
        }
        out += "<div class=\"legend\"><span><i></i>service ×replicas</span><span><i class=\"primary\"></i>database primary → backup</span>"
        out += "<span><i class=\"backup\"></i>DR backup leg</span><span><i class=\"cdn\"></i>CDN</span><span><i class=\"dr\"></i>DR leg</span></div></div>\n"
        return out + "<div class=\"scroll\">\n\(map.svg())</div>\n</section>\n"
    }

    private static func costSection(_ report: PlacementReport, map: PlacementMap) -> String {
        let cost = report.cost
        var colors: [String: String] = [:]
        for group in map.groups {
            for cloud in group.clouds { colors[cloud.name] = group.audience.map(map.color) ?? PlacementMap.globalColor }
        }
        let bars = cost.byCloud.map { CostChart.Bar(name: $0.name, amount: $0.amount, color: colors[$0.name] ?? PlacementMap.globalColor) }
        var out = "<section id=\"cost\"><h2>Monthly cost by cloud</h2>\n"
        out += "<p class=\"lead\">\(HTML.money(cost.monthly)) \(HTML.escape(cost.currency)) a month in all; no placement under the same rules can cost less than \(HTML.money(cost.lowerBound)), so this one is within \(Money.decimals(cost.gap * 100, places: 2))% of the cheapest. Each bar is in the colour of its cloud's jurisdiction.</p>\n"
        out += "<div class=\"scroll\">\n\(CostChart.svg(bars, currency: cost.currency))</div>\n"
        if !cost.byCDN.isEmpty {
            out += "<p class=\"sub\">CDNs</p><p>" + report.cdns.map { cdn in
                "\(HTML.escape(cdn.name)) on \(HTML.escape(cdn.cloud)): \(HTML.money(cost.byCDN.first { $0.name == cdn.name }?.amount ?? 0)) \(HTML.escape(cost.currency))"
            }.joined(separator: " · ") + "</p>\n"
        }
        return out + "</section>\n"
    }

    private static func residencySection(_ setting: ReportSetting) -> String {
        var out = "<section id=\"residency\"><h2>The laws that fence each audience's data</h2>\n"
        out += "<p class=\"lead\">A cell handling these data classes for an audience may run only in clouds with one of the allowed jurisdiction tags; its primary and its backup leg alike.</p>\n"
        out += "<table><thead><tr><th>audience</th><th>jurisdiction</th><th class=\"num\">latency limit</th><th>rule</th><th>clouds it allows</th></tr></thead><tbody>\n"
        for audience in setting.audiences {
            let rules = audience.rules.isEmpty ? [nil] : audience.rules.map(Optional.some)
            for rule in rules {
                let allowed = rule.map { rule in setting.clouds.filter { cloud in rule.allowed.contains(where: cloud.jurisdiction.contains) }.map(\.name) } ?? []
                out += "<tr><td><b>\(HTML.escape(audience.name))</b></td><td>\(HTML.escape(audience.jurisdiction))</td>"
                out += "<td class=\"num\">\(audience.latencyMs.map { "\(NumberText.format($0)) ms" } ?? "–")</td>"
                out += "<td>\(rule.map { "\(HTML.escape($0.law ?? "rule")): \(HTML.escape($0.data)) data only in [\(HTML.escape($0.allowed.joined(separator: ", ")))]" } ?? "no residency rule")</td>"
                out += "<td>\(rule == nil ? "every cloud" : allowed.isEmpty ? "none" : HTML.escape(allowed.joined(separator: ", ")))</td></tr>\n"
            }
        }
        return out + "</tbody></table>\n</section>\n"
    }

    private static func cellsSection(_ report: PlacementReport, map: PlacementMap, setting: ReportSetting) -> String {
        let considered = Dictionary(report.considered.map { ($0.cell, $0) }, uniquingKeysWith: { first, _ in first })
        let rejected = Dictionary(report.explanations.map { ($0.cell, $0) }, uniquingKeysWith: { first, _ in first })
        var out = "<section id=\"cells\"><h2>Cells</h2>\n"
        out += "<p class=\"lead\">Every cell by audience: where it runs and what it costs; open one for why it went there, the clouds considered with what it would cost in each, and every other cloud's reasons.</p>\n"
        // Big plans start folded: the map is the overview, the filter finds a cell.
        let folded = report.cells.count > 60
        let names = Set(setting.audiences.map(\.name))
        for audience in map.audiences {
            let cells = report.cells.filter { cell in
                let suffix = cell.name.split(separator: "@").last.map(String.init) ?? ""
                return audience.key.isEmpty ? !(cell.name.contains("@") && names.contains(suffix)) : cell.name.hasSuffix("@\(audience.key)")
            }
            guard !cells.isEmpty else { continue }
            out += "<details class=\"group\"\(folded ? "" : " open") data-audience=\"\(HTML.escape(audience.key))\"><summary>\(HTML.escape(audience.title)) · \(cells.count) cell\(cells.count == 1 ? "" : "s")</summary>\n"
            for cell in cells { out += CellDetails.html(cell, report: report, considered: considered[cell.name], rejected: rejected[cell.name]) }
            out += "</details>\n"
        }
        return out + "</section>\n"
    }
}
