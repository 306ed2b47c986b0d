/// A duration as the reports write it: its two largest units, `2h 5m`, `45s`.
public enum DurationText {
    public static func text(_ seconds: Int) -> String {
        let value = max(0, seconds)
        let units = [(86400, "d"), (3600, "h"), (60, "m"), (1, "s")]
        guard let first = units.firstIndex(where: { value >= $0.0 }) else { return "0s" }
        var text = "\(value / units[first].0)\(units[first].1)"
        if first + 1 < units.count {
            let next = value % units[first].0 / units[first + 1].0
            if next > 0 { text += " \(next)\(units[first + 1].1)" }
        }
        return text
    }
}
