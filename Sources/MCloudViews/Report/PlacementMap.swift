import MCloudCore

/// The placement map: the audiences on the left with the laws that fence their data, the clouds on the right grouped
/// by jurisdiction, every cell drawn as a chip in each cloud where it runs (a service's replicas, a database's primary
/// and its backup leg, a CDN), a rail down from each audience with a branch into every cloud its cells use (thicker
/// for more cells), and the DR legs as arrows from a primary's cloud to its backup's. Laid out here with fixed
/// coordinates, so the same plan draws the same bytes. It grows downwards with the cells and stays legible at hundreds
/// of them: chips keep their size, rails never tangle, the page scrolls, and its filter and audience buttons dim what
/// is not asked for.
struct PlacementMap {
    enum ChipKind: String {
        case primary, service, backup, cdn
    }

    struct Chip {
        var cell: String
        var label: String
        var kind: ChipKind
        /// The audience key (`""` for a global cell or a CDN).
        var audience: String
        var title: String
        /// With `report --status`: the cell's health in this cloud, nil where the state records nothing of it there.
        var live: StatusVerdict??
        var x = 0.0, y = 0.0, width = 0.0
    }

    struct CloudBox {
        var name: String
        var vendor: String
        var region: String
        var jurisdiction: [String]
        var cost: Double
        var chips: [Chip]
        /// With `report --status`: why the cloud could not be read, when it could not.
        var down: String?
        var x = 0.0, y = 0.0, height = 0.0
        var used: Bool { !chips.isEmpty || cost > 0 }
    }

    struct Group {
        var key: String
        var note: String
        /// The audience whose jurisdiction this is, for its colour.
        var audience: String?
        var clouds: [CloudBox]
        var y = 0.0, height = 0.0
    }

    struct AudienceBox {
        var key: String
        var title: String
        var lines: [String]
        var color: String
        var y = 0.0, height = 0.0
    }

    struct Link {
        var audience: String
        var cloud: String
        var cells: Int
    }

    /// Colours that stay apart for people with the common colour-vision deficiencies, then repeat.
    static let palette = ["#2563eb", "#d97706", "#059669", "#db2777", "#7c3aed", "#0891b2", "#65a30d", "#dc2626"]
    static let globalColor = "#64748b"

    static let margin = 20.0, audienceX = 20.0, audienceWidth = 230.0, cloudX = 390.0, cloudWidth = 760.0, drLane = 130.0
    static let top = 64.0, chipHeight = 22.0, chipGap = 6.0, charWidth = 6.7, headerHeight = 48.0
    static var width: Double { cloudX + cloudWidth + drLane + margin }

    var audiences: [AudienceBox] = []
    var groups: [Group] = []
    var links: [Link] = []
    /// (primary cloud, backup cloud, cells).
    var legs: [(from: String, to: String, cells: [String])] = []
    var height = 0.0
    private var colors: [String: String] = [:]

    init(report: PlacementReport, setting: ReportSetting, status: StatusDocument? = nil) {
        let audienceNames = setting.audiences.map(\.name)
        func audience(of cell: String) -> String {
            guard let at = cell.lastIndex(of: "@") else { return "" }
            let suffix = String(cell[cell.index(after: at)...])
            return audienceNames.contains(suffix) ? suffix : ""
        }
        for (index, name) in audienceNames.enumerated() { colors[name] = Self.palette[index % Self.palette.count] }
        colors[""] = Self.globalColor

        let currency = report.cost.currency
        let cellCost = Dictionary(report.cost.byCell.map { ($0.name, $0.amount) }, uniquingKeysWith: { first, _ in first })
        var chips: [String: [Chip]] = [:]
        var linkCells: [String: Set<String>] = [:]
        func add(_ chip: Chip, to cloud: String, linking audiences: [String]) {
            chips[cloud, default: []].append(chip)
            for audience in audiences { linkCells["\(audience)\u{0}\(cloud)", default: []].insert(chip.cell) }
        }
        var legCells: [String: [String]] = [:]
        for cell in report.cells {
            let key = audience(of: cell.name)
            let monthly = Money.format(cellCost[cell.name] ?? 0, currency)
            switch cell.site {
            case .replicas(let counts):
                let total = counts.map(\.count).reduce(0, +)
                for count in counts {
                    let title = "\(cell.name): \(count.count) of \(total) replica\(total == 1 ? "" : "s") here; the cell costs \(monthly) a month"
                    add(Chip(cell: cell.name, label: "\(cell.name) ×\(count.count)", kind: .service, audience: key, title: title), to: count.cloud, linking: [key])
                }
            case .database(let primary, let backup):
                let label = cell.name + (backup.map { " → \($0)" } ?? "")
                let title = "\(cell.name): primary here\(backup.map { ", DR backup leg in \($0)" } ?? ""); \(monthly) a month"
                add(Chip(cell: cell.name, label: label, kind: .primary, audience: key, title: title), to: primary, linking: [key])
                if let backup {
                    let title = "\(cell.name): the DR backup leg, from its primary in \(primary)"
                    chips[backup, default: []].append(Chip(cell: cell.name, label: "backup of \(cell.name)", kind: .backup, audience: key, title: title))
                    legCells["\(primary)\u{0}\(backup)", default: []].append(cell.name)
                }
            }
        }
        let cdnCost = Dictionary(report.cost.byCDN.map { ($0.name, $0.amount) }, uniquingKeysWith: { first, _ in first })
        for cdn in report.cdns {
            let served = setting.cdnAudiences[cdn.name] ?? []
            let title = "CDN \(cdn.name) for \(served.isEmpty ? "every audience" : served.joined(separator: ", ")); \(Money.format(cdnCost[cdn.name] ?? 0, currency)) a month"
            add(Chip(cell: cdn.name, label: "CDN \(cdn.name)", kind: .cdn, audience: "", title: title), to: cdn.cloud, linking: served.isEmpty ? audienceNames : served)
        }
        legs = legCells.keys.sorted().map { key in
            let parts = key.split(separator: "\u{0}").map(String.init)
            return (from: parts[0], to: parts.count > 1 ? parts[1] : "", cells: legCells[key] ?? [])
        }

        // Every cloud of the catalog, and any the plan names that the catalog no longer has.
        var clouds = setting.clouds
        let known = Set(clouds.map(\.name))
        let named = Set(chips.keys).union(report.cost.byCloud.map(\.name)).subtracting(known)
        clouds += named.sorted().map { ReportSetting.Cloud(name: $0, vendor: "not in the catalog", region: "", jurisdiction: []) }
        let costs = Dictionary(report.cost.byCloud.map { ($0.name, $0.amount) }, uniquingKeysWith: { first, _ in first })
        let audienceIndex = Dictionary(audienceNames.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        let kindOrder: [ChipKind: Int] = [.primary: 0, .service: 1, .backup: 2, .cdn: 3]
        var boxes = clouds.map { cloud in
            let sorted = (chips[cloud.name] ?? []).sorted { a, b in
                let left = (audienceIndex[a.audience] ?? Int.max, kindOrder[a.kind] ?? 0), right = (audienceIndex[b.audience] ?? Int.max, kindOrder[b.kind] ?? 0)
                return left != right ? left < right : Self.naturallyBefore(a.cell, b.cell)
            }
            return CloudBox(name: cloud.name, vendor: cloud.vendor, region: cloud.region, jurisdiction: cloud.jurisdiction, cost: costs[cloud.name] ?? 0, chips: sorted)
        }
        if let status { Self.judge(&boxes, by: status) }
        boxes.sort { ($0.used ? 0 : 1, -$0.cost, $0.name) < ($1.used ? 0 : 1, -$1.cost, $1.name) }

        // Jurisdictions: an audience's first (in the audiences' order), then the others by name. A cloud belongs to
        // the first audience jurisdiction among its tags, else to its last, broadest tag ([DE, EU] is EU).
        let audienceJurisdictions = setting.audiences.map(\.jurisdiction)
        func group(of cloud: CloudBox) -> String {
            audienceJurisdictions.first { cloud.jurisdiction.contains($0) } ?? cloud.jurisdiction.last ?? "unknown"
        }
        let keys = Set(boxes.map(group))
        var orderedKeys: [String] = []
        for key in audienceJurisdictions where keys.contains(key) && !orderedKeys.contains(key) { orderedKeys.append(key) }
        orderedKeys += keys.subtracting(orderedKeys).sorted()
        groups = orderedKeys.map { key in
            let rules = setting.audiences.flatMap(\.rules).filter { $0.allowed.contains(key) }
            let note = rules.isEmpty
                ? "no residency rule names \(key)"
                : rules.map { "\($0.law ?? "a rule") lets \($0.data) data of \($0.audience) live here" }.joined(separator: " · ")
            return Group(key: key, note: note, audience: setting.audiences.first { $0.jurisdiction == key }?.name, clouds: boxes.filter { group(of: $0) == key })
        }

        var counts: [String: Int] = [:]
        for (key, cells) in linkCells { counts[key] = cells.count }
        links = counts.keys.sorted().map { key in
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
            return Link(audience: parts[0], cloud: parts[1], cells: counts[key] ?? 0)
        }
        let hasGlobal = report.cells.contains { audience(of: $0.name).isEmpty }
        audiences = setting.audiences.map { audience in
            var lines = ["\(audience.jurisdiction)" + (audience.latencyMs.map { " · latency ≤ \(NumberText.format($0)) ms" } ?? "")]
            lines += audience.rules.map { "\($0.law ?? "rule"): \($0.data) data only in [\($0.allowed.joined(separator: ", "))]" }
            if audience.rules.isEmpty { lines.append("no residency rule") }
            return AudienceBox(key: audience.name, title: audience.name, lines: lines, color: colors[audience.name] ?? Self.globalColor)
        }
        if hasGlobal {
            audiences.append(AudienceBox(key: "", title: "every audience", lines: ["global cells serve them all", "each rule of each audience applies"], color: Self.globalColor))
        }
        layOut()
    }

    func color(_ audience: String) -> String { colors[audience] ?? Self.globalColor }

    /// Gives each chip its cell's health in its cloud and each cloud that could not be read its reason.
    private static func judge(_ boxes: inout [CloudBox], by status: StatusDocument) {
        var sites: [String: StatusVerdict] = [:]
        for cell in status.cells {
            for site in cell.sites { sites["\(cell.name)\u{0}\(site.cloud)"] = site.verdict }
        }
        let down = Dictionary(status.clouds.filter { !$0.up }.map { ($0.name, $0.reason ?? "no answer") }, uniquingKeysWith: { first, _ in first })
        for box in boxes.indices {
            boxes[box].down = down[boxes[box].name]
            for chip in boxes[box].chips.indices {
                boxes[box].chips[chip].live = .some(sites["\(boxes[box].chips[chip].cell)\u{0}\(boxes[box].name)"])
            }
        }
    }

    /// Names in the order people count: `svc-9` before `svc-10`.
    static func naturallyBefore(_ a: String, _ b: String) -> Bool {
        func parts(_ text: String) -> [(text: String, number: Int?)] {
            var result: [(String, Int?)] = []
            var current = "", digits = false
            for character in text {
                if !current.isEmpty, character.isASCII && character.isNumber != digits {
                    result.append((current, digits ? Int(current) : nil))
                    current = ""
                }
                digits = character.isASCII && character.isNumber
                current.append(character)
            }
            if !current.isEmpty { result.append((current, digits ? Int(current) : nil)) }
            return result
        }
        for (left, right) in zip(parts(a), parts(b)) where left.text != right.text {
            if let x = left.number, let y = right.number, x != y { return x < y }
            return left.text < right.text
        }
        return a.count != b.count ? a.count < b.count : a < b
    }

    // MARK: Layout

    private mutating func layOut() {
        var y = Self.top
        for index in groups.indices {
            groups[index].y = y
            var inner = y + 40
            for cloud in groups[index].clouds.indices {
                inner = place(&groups[index].clouds[cloud], at: inner) + 10
            }
            groups[index].height = inner - y
            y = inner + 18
        }
        let cloudsBottom = y

        // The audiences stacked at the top; their rails reach down to every cloud their cells use.
        var floor = Self.top
        for index in audiences.indices {
            audiences[index].height = 44 + 17 * Double(audiences[index].lines.count)
            audiences[index].y = floor
            floor += audiences[index].height + 14
        }
        height = max(cloudsBottom, floor) + Self.margin
    }

    /// Lays out a cloud's chips in rows; returns the box's bottom.
    private func place(_ box: inout CloudBox, at y: Double) -> Double {
        box.x = Self.cloudX
        box.y = y
        var x = 12.0, row = y + Self.headerHeight
        let right = Self.cloudWidth - 12
        for index in box.chips.indices {
            let width = Double(box.chips[index].label.count) * Self.charWidth + (box.chips[index].kind == .primary ? 34 : 20)
            if x + width > right, x > 12 {
                x = 12
                row += Self.chipHeight + Self.chipGap
            }
            box.chips[index].x = Self.cloudX + x
            box.chips[index].y = row
            box.chips[index].width = width
            x += width + Self.chipGap
        }
        box.height = box.chips.isEmpty ? Self.headerHeight : row + Self.chipHeight + 10 - y
        return y + box.height
    }

    // MARK: Drawing

    func svg() -> String {
        let n = HTML.number
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\" width=\"\(n(Self.width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(Self.width)) \(n(height))\" role=\"img\" aria-label=\"Placement map\">\n"
        out += "<defs><marker id=\"dr-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 10z\" class=\"dr-head\"/></marker></defs>\n"
        out += "<text class=\"column-title\" x=\"\(n(Self.audienceX))\" y=\"34\">Audiences and the laws on their data</text>\n"
        out += "<text class=\"column-title\" x=\"\(n(Self.cloudX - 10))\" y=\"34\">Clouds by jurisdiction, each cell where it runs</text>\n"
        out += "<text class=\"column-title\" x=\"\(n(Self.cloudX + Self.cloudWidth + 14))\" y=\"34\">DR legs</text>\n"
        out += drawLinks()
        for group in groups { out += draw(group) }
        out += drawLegs()
        for audience in audiences { out += draw(audience) }
        return out + "</svg>\n"
    }

    private func box(named name: String) -> CloudBox? {
        for group in groups { if let found = group.clouds.first(where: { $0.name == name }) { return found } }
        return nil
    }

    /// The x of each audience's rail, evenly apart in the gutter between the audiences and the clouds.
    private func railX(_ index: Int) -> Double {
        let left = Self.audienceX + Self.audienceWidth + 26, right = Self.cloudX - 34
        let step = audiences.count > 1 ? min(24, (right - left) / Double(audiences.count - 1)) : 0
        return left + step * Double(index)
    }

    private func drawLinks() -> String {
        let n = HTML.number
        var out = "<g class=\"links\">\n"
        // A cloud's branches enter it one below the other, in the order of the audiences.
        let order = Dictionary(audiences.enumerated().map { ($0.element.key, $0.offset) }, uniquingKeysWith: { first, _ in first })
        var entering: [String: [Link]] = [:]
        for link in links { entering[link.cloud, default: []].append(link) }
        for key in entering.keys { entering[key]?.sort { (order[$0.audience] ?? 0) < (order[$1.audience] ?? 0) } }
        for (index, audience) in audiences.enumerated() {
            let own = links.filter { $0.audience == audience.key }
            guard !own.isEmpty else { continue }
            let x = railX(index), start = audience.y + audience.height / 2
            var branches = ""
            var bottom = start
            for link in own {
                guard let cloud = box(named: link.cloud) else { continue }
                let slots = entering[link.cloud] ?? []
                let slot = Double(slots.firstIndex { $0.audience == link.audience } ?? 0)
                let span = min(cloud.height, Self.headerHeight) - 20
                let y = cloud.y + 10 + (slots.count <= 1 ? span / 2 : span * slot / Double(slots.count - 1))
                bottom = max(bottom, y)
                var stroke = 2.0
                var count = link.cells
                while count > 1 { stroke += 1.0; count /= 2 }
                let title = "\(audience.title) → \(link.cloud): \(link.cells) cell\(link.cells == 1 ? "" : "s")"
                branches += "<path class=\"branch\" d=\"M\(n(x)) \(n(y))H\(n(Self.cloudX))\" stroke-width=\"\(n(min(stroke, 9)))\"><title>\(HTML.escape(title))</title></path>"
                branches += "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"3.5\"/>\n"
            }
            out += "<g class=\"link\" data-audience=\"\(HTML.escape(audience.key))\" style=\"--c:\(audience.color)\">"
            out += "<path class=\"rail\" d=\"M\(n(Self.audienceX + Self.audienceWidth)) \(n(start))H\(n(x - 8))Q\(n(x)) \(n(start)) \(n(x)) \(n(start + 8))V\(n(bottom))\"/>\n"
            out += branches + "</g>\n"
        }
        return out + "</g>\n"
    }

    private func draw(_ group: Group) -> String {
        let n = HTML.number
        let tint = group.audience.map(color) ?? Self.globalColor
        var out = "<g class=\"jurisdiction\" data-jurisdiction=\"\(HTML.escape(group.key))\">\n"
        out += "<rect class=\"group-box\" x=\"\(n(Self.cloudX - 10))\" y=\"\(n(group.y))\" width=\"\(n(Self.cloudWidth + 20))\" height=\"\(n(group.height))\" rx=\"12\" style=\"--tint:\(tint)\"/>\n"
        out += "<rect x=\"\(n(Self.cloudX - 10))\" y=\"\(n(group.y))\" width=\"6\" height=\"\(n(group.height))\" rx=\"3\" fill=\"\(tint)\"/>\n"
        out += "<text class=\"group-key\" x=\"\(n(Self.cloudX + 4))\" y=\"\(n(group.y + 26))\">\(HTML.escape(group.key))</text>"
        out += "<text class=\"group-note\" x=\"\(n(Self.cloudX + 14 + 11 * Double(group.key.count)))\" y=\"\(n(group.y + 26))\">\(HTML.escape(group.note))</text>\n"
        let highest = groups.flatMap(\.clouds).map(\.cost).max() ?? 0
        let total = groups.flatMap(\.clouds).map(\.cost).reduce(0, +)
        for cloud in group.clouds { out += draw(cloud, highest: highest, total: total) }
        return out + "</g>\n"
    }

    private func draw(_ cloud: CloudBox, highest: Double, total: Double) -> String {
        let n = HTML.number
        let tags = cloud.jurisdiction.isEmpty ? "" : " · [\(cloud.jurisdiction.joined(separator: ", "))]"
        var out = "<g class=\"cloud\(cloud.used ? "" : " unused")\(cloud.down == nil ? "" : " down")\" id=\"cloud-\(HTML.escape(cloud.name))\" data-cloud=\"\(HTML.escape(cloud.name))\">\n"
        if let down = cloud.down { out += "<title>\(HTML.escape("\(cloud.name) is down: \(down)"))</title>" }
        out += "<rect class=\"cloud-box\" x=\"\(n(cloud.x))\" y=\"\(n(cloud.y))\" width=\"\(n(Self.cloudWidth))\" height=\"\(n(cloud.height))\" rx=\"8\"/>\n"
        out += "<text class=\"cloud-name\" x=\"\(n(cloud.x + 12))\" y=\"\(n(cloud.y + 20))\">\(HTML.escape(cloud.name))</text>"
        out += "<text class=\"cloud-meta\" x=\"\(n(cloud.x + 12))\" y=\"\(n(cloud.y + 37))\">\(HTML.escape(cloud.vendor))\(cloud.region.isEmpty ? "" : " · \(HTML.escape(cloud.region))")\(HTML.escape(tags))\(cloud.used ? "" : " · nothing placed here")\(cloud.down.map { " · down: \(HTML.escape($0))" } ?? "")</text>\n"
        if cloud.cost > 0 {
            let barRight = cloud.x + Self.cloudWidth - 12, barWidth = 180.0
            let filled = highest > 0 ? max(2, barWidth * cloud.cost / highest) : 0
            out += "<rect class=\"bar-track\" x=\"\(n(barRight - barWidth))\" y=\"\(n(cloud.y + 30))\" width=\"\(n(barWidth))\" height=\"7\" rx=\"3.5\"/>"
            out += "<rect class=\"bar\" x=\"\(n(barRight - barWidth))\" y=\"\(n(cloud.y + 30))\" width=\"\(n(filled))\" height=\"7\" rx=\"3.5\"/>"
            out += "<text class=\"cloud-cost\" x=\"\(n(barRight))\" y=\"\(n(cloud.y + 20))\">\(HTML.money(cloud.cost)) · \(HTML.share(cloud.cost, of: total))</text>\n"
        }
        for chip in cloud.chips { out += draw(chip) }
        return out + "</g>\n"
    }

    private func draw(_ chip: Chip) -> String {
        let n = HTML.number
        var color = color(chip.audience), title = chip.title, health = ""
        if let live = chip.live {
            color = live.map { StatusSection.color($0.health) } ?? StatusSection.absentColor
            health = " data-health=\"\(live?.health.rawValue ?? "none")\""
            title += live.map { ". \($0.health.rawValue)\($0.reason.map { ": \($0)" } ?? "")" } ?? ". The state records nothing of it in this cloud"
        }
        var out = "<a class=\"chip \(chip.kind.rawValue)\" href=\"#cell-\(HTML.escape(chip.cell))\" data-cell=\"\(HTML.escape(chip.cell))\" data-audience=\"\(HTML.escape(chip.audience))\"\(health) style=\"--c:\(color)\">"
        out += "<title>\(HTML.escape(title))</title>"
        out += "<rect x=\"\(n(chip.x))\" y=\"\(n(chip.y))\" width=\"\(n(chip.width))\" height=\"\(n(Self.chipHeight))\" rx=\"\(chip.kind == .service ? 11 : 4)\"/>"
        var textX = chip.x + 10
        if chip.kind == .primary {
            // A small cylinder: a database.
            let x = chip.x + 9, y = chip.y + 6
            out += "<path class=\"db-icon\" d=\"M\(n(x)) \(n(y + 2))v7c0 1.4 4.5 1.4 5 1.4s5 0 5-1.4v-7c0 1.4-4.5 1.4-5 1.4s-5 0-5-1.4c0-1.4 4.5-1.4 5-1.4s5 0 5 1.4\"/>"
            textX += 14
        }
        out += "<text x=\"\(n(textX))\" y=\"\(n(chip.y + 15))\">\(HTML.escape(chip.label))</text></a>\n"
        return out
    }

    private func drawLegs() -> String {
        let n = HTML.number
        var out = "<g class=\"legs\">\n"
        // Endpoints spread down each cloud's right edge, ordered by the other end, so arrows do not share a point.
        var ends: [String: [(other: Double, leg: Int)]] = [:]
        for (index, leg) in legs.enumerated() {
            guard let from = box(named: leg.from), let to = box(named: leg.to) else { continue }
            ends[leg.from, default: []].append((to.y, index))
            ends[leg.to, default: []].append((from.y, index))
        }
        func anchor(_ cloud: CloudBox, leg: Int) -> Double {
            let list = (ends[cloud.name] ?? []).sorted { ($0.other, $0.leg) < ($1.other, $1.leg) }
            let index = Double(list.firstIndex { $0.leg == leg } ?? 0)
            let span = min(cloud.height, 70) - 20
            return cloud.y + 10 + (list.count <= 1 ? span / 2 : span * index / Double(list.count - 1))
        }
        let x = Self.cloudX + Self.cloudWidth
        for (index, leg) in legs.enumerated() {
            guard let from = box(named: leg.from), let to = box(named: leg.to) else { continue }
            let y1 = anchor(from, leg: index), y2 = anchor(to, leg: index)
            let bulge = min(Self.drLane - 20, 22 + abs(y2 - y1) * 0.18)
            let title = "DR backup leg\(leg.cells.count == 1 ? "" : "s") \(leg.from) → \(leg.to): \(leg.cells.joined(separator: ", "))"
            out += "<path class=\"leg\" d=\"M\(n(x)) \(n(y1))C\(n(x + bulge)) \(n(y1)) \(n(x + bulge)) \(n(y2)) \(n(x + 3)) \(n(y2))\" marker-end=\"url(#dr-arrow)\"><title>\(HTML.escape(title))</title></path>"
            out += "<text class=\"leg-count\" x=\"\(n(x + bulge * 0.75 + 4))\" y=\"\(n((y1 + y2) / 2 + 4))\">\(leg.cells.count)</text>\n"
        }
        return out + "</g>\n"
    }

    private func draw(_ audience: AudienceBox) -> String {
        let n = HTML.number
        var out = "<g class=\"audience\" data-audience=\"\(HTML.escape(audience.key))\" style=\"--c:\(audience.color)\" tabindex=\"0\">\n"
        out += "<rect class=\"audience-box\" x=\"\(n(Self.audienceX))\" y=\"\(n(audience.y))\" width=\"\(n(Self.audienceWidth))\" height=\"\(n(audience.height))\" rx=\"10\"/>"
        out += "<rect x=\"\(n(Self.audienceX))\" y=\"\(n(audience.y))\" width=\"\(n(Self.audienceWidth))\" height=\"6\" rx=\"3\" fill=\"\(audience.color)\"/>\n"
        out += "<text class=\"audience-name\" x=\"\(n(Self.audienceX + 14))\" y=\"\(n(audience.y + 30))\">\(HTML.escape(audience.title))</text>\n"
        for (index, line) in audience.lines.enumerated() {
            out += "<text class=\"audience-line\(index == 0 ? " first" : "")\" x=\"\(n(Self.audienceX + 14))\" y=\"\(n(audience.y + 50 + 17 * Double(index)))\">\(HTML.escape(line))</text>\n"
        }
        return out + "</g>\n"
    }
}
