import Foundation
import MCloudProvider

/// `report --status`: the live health drawn from the same `StatusDocument` that `mcloud status` prints. A section at the
/// top of the page holds the application's roll-up, the clouds that could not be read and every site that is not
/// healthy with its reason; on the map (`PlacementMap`) each chip takes its cell's health in that cloud as its colour
/// and its reason as its tooltip, and a cloud that is down is greyed with its reason. Its style is added to the page
/// only with a status, so the page without one keeps its bytes.
enum StatusSection {
    /// A chip's colour for each health; distinct from one another for the common colour-vision deficiencies.
    static func color(_ health: StatusHealth) -> String {
        switch health {
        case .healthy: "#15803d"
        case .progressing: "#2563eb"
        case .missing: "#7e22ce"
        case .degraded: "#dc2626"
        case .unknown: "#64748b"
        }
    }

    /// A chip whose cell the state records nowhere in that cloud: placed by the manifests, not applied there.
    static let absentColor = "#cbd5e1"

    static func html(_ status: StatusDocument) -> String {
        let health = status.verdict.health
        let time = Date(timeIntervalSince1970: Double(status.time)).formatted(Date.ISO8601FormatStyle())
        var out = "<section id=\"health\" class=\"h-\(health.rawValue.lowercased())\" style=\"--h:\(color(health))\">"
        out += "<h2>Health now: <span class=\"health\">\(health.rawValue)</span></h2>\n"
        out += "<p class=\"lead\">\(status.verdict.reason.map { HTML.escape($0) + ". " } ?? "")"
        out += "Read from every cloud the state names at <time datetime=\"\(time)\">\(time)</time>, as <code>mcloud status</code> reads them; "
        out += "each chip on the map has its cell's health in that cloud as its colour and its first reason as its tooltip.</p>\n"
        out += "<div class=\"legend health-legend\">" + StatusHealth.allCases.map { "<span><i style=\"--h:\(color($0))\"></i>\($0.rawValue)</span>" }.joined()
        out += "<span><i style=\"--h:\(absentColor)\"></i>not in the state there</span></div>\n"
        var items: [String] = []
        for cloud in status.clouds where !cloud.up {
            items.append("<li class=\"down\"><b>cloud \(HTML.escape(cloud.name))</b> is down: \(HTML.escape(cloud.reason ?? "no answer"))</li>")
        }
        for cell in status.cells {
            for site in cell.sites {
                guard let reason = site.verdict.reason else { continue }
                let health = site.verdict.health
                items.append("<li><b>\(HTML.escape(cell.name))</b> in \(HTML.escape(site.cloud)) <span class=\"health\" style=\"--h:\(color(health))\">\(health.rawValue)</span> \(HTML.escape(reason))</li>")
            }
        }
        if !items.isEmpty { out += "<ul class=\"health-reasons\">\n" + items.joined(separator: "\n") + "\n</ul>\n" }
        return out + "</section>\n"
    }

    static let css = """
        #health { border-left: 6px solid var(--h); }
        #health h2 .health, #health li .health { color: #fff; background: var(--h); border-radius: 999px; padding: 0 10px; font-size: 13px; }
        #health li .health { font-size: 11.5px; padding: 0 8px; margin: 0 4px; }
        ul.health-reasons { margin: 8px 0 0; padding-left: 18px; font-size: 13px; color: #334155; }
        ul.health-reasons li.down { color: #475569; }
        .health-legend { margin: 0 0 4px; }
        .health-legend i { background: color-mix(in srgb, var(--h) 20%, #fff); border-color: var(--h); }
        .cloud.down .cloud-box { fill: #e2e8f0; stroke: #94a3b8; stroke-dasharray: 6 3; }
        .cloud.down .cloud-name, .cloud.down .cloud-meta { fill: #64748b; }
        .cloud.down .chip { opacity: .7; }
        """
}
