/// The monthly cost of each cloud as horizontal bars, dearest first, each in the colour of its jurisdiction, with
/// its amount and share of the total.
enum CostChart {
    struct Bar {
        var name: String
        var amount: Double
        var color: String
    }

    static func svg(_ bars: [Bar], currency: String) -> String {
        let n = HTML.number
        let sorted = bars.filter { $0.amount > 0 }.sorted { ($0.amount, $1.name) > ($1.amount, $0.name) }
        let total = sorted.map(\.amount).reduce(0, +)
        let highest = sorted.first?.amount ?? 0
        let label = 170.0, track = 560.0, row = 26.0
        let width = label + track + 230
        let height = Double(sorted.count) * row + 12
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"costs\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" aria-label=\"Monthly cost by cloud\">\n"
        for (index, bar) in sorted.enumerated() {
            let y = 6 + Double(index) * row
            let filled = highest > 0 ? max(2, track * bar.amount / highest) : 0
            out += "<g class=\"cost-row\" data-cloud=\"\(HTML.escape(bar.name))\"><title>\(HTML.escape("\(bar.name): \(HTML.money(bar.amount)) \(currency) a month, \(HTML.share(bar.amount, of: total)) of the total"))</title>"
            out += "<text class=\"cost-name\" x=\"\(n(label - 10))\" y=\"\(n(y + 15))\">\(HTML.escape(bar.name))</text>"
            out += "<rect class=\"bar-track\" x=\"\(n(label))\" y=\"\(n(y + 4))\" width=\"\(n(track))\" height=\"14\" rx=\"4\"/>"
            out += "<rect x=\"\(n(label))\" y=\"\(n(y + 4))\" width=\"\(n(filled))\" height=\"14\" rx=\"4\" fill=\"\(bar.color)\"/>"
            out += "<text class=\"cost-amount\" x=\"\(n(label + track + 10))\" y=\"\(n(y + 15))\">\(HTML.money(bar.amount)) \(HTML.escape(currency)) · \(HTML.share(bar.amount, of: total))</text></g>\n"
        }
        return out + "</svg>\n"
    }
}
