import MCloudCore

/// Text made safe for HTML and SVG, and the number formats the report prints.
enum HTML {
    /// Escapes text for an element's content or a quoted attribute.
    static func escape(_ text: String) -> String { Markup.escape(text) }

    /// A coordinate or length with one decimal, so the same layout always prints the same bytes.
    static func number(_ value: Double) -> String {
        let text = Money.decimals(value, places: 1)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// `216 608.23`: two decimals, thousands apart by a narrow no-break space.
    static func money(_ value: Double) -> String {
        let text = Money.decimals(value, places: 2)
        let negative = text.hasPrefix("-")
        let digits = negative ? String(text.dropFirst()) : text
        let parts = digits.split(separator: ".", maxSplits: 1)
        var whole = String(parts.first ?? "")
        var grouped = ""
        while whole.count > 3 {
            grouped = "\u{202F}" + whole.suffix(3) + grouped
            whole = String(whole.dropLast(3))
        }
        return (negative ? "-" : "") + whole + grouped + (parts.count > 1 ? "." + parts[1] : "")
    }

    /// `36%`, `0.4%`, `<0.1%`.
    static func share(_ part: Double, of total: Double) -> String {
        guard total > 0 else { return "0%" }
        let percent = 100 * part / total
        if percent >= 10 { return Money.decimals(percent, places: 0) + "%" }
        if percent >= 0.1 { return Money.decimals(percent, places: 1) + "%" }
        return part > 0 ? "<0.1%" : "0%"
    }
}
