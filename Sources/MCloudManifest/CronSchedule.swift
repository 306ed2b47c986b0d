/// Checks five-field cron schedules (minute hour day-of-month month day-of-week) and the @-shorthands,
/// as the backup job's cron will read them.
enum CronSchedule {
    private static let shorthands: Set<String> = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]
    private static let months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    private static let days = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]

    private struct Field {
        var name: String
        var range: ClosedRange<Int>
        var names: [String]
    }

    private static let fields = [
        Field(name: "minute", range: 0...59, names: []),
        Field(name: "hour", range: 0...23, names: []),
        Field(name: "day of month", range: 1...31, names: []),
        Field(name: "month", range: 1...12, names: months),
        Field(name: "day of week", range: 0...7, names: days),
    ]

    /// Why `text` is not a schedule, or nil when it is one.
    static func problem(in text: String) -> String? {
        let trimmed = text.trimmingSpaces
        if trimmed.hasPrefix("@") {
            return shorthands.contains(trimmed) ? nil : "unknown shorthand \(trimmed) (use @hourly, @daily, @weekly, @monthly or @yearly)"
        }
        let parts = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 5 else {
            return "it has \(parts.count) field\(parts.count == 1 ? "" : "s"); cron needs 5 (minute hour day-of-month month day-of-week)"
        }
        for (part, field) in zip(parts, fields) {
            for item in part.split(separator: ",", omittingEmptySubsequences: false) {
                if let problem = problem(inItem: item, field) { return problem }
            }
        }
        return nil
    }

    private static func problem(inItem item: Substring, _ field: Field) -> String? {
        let pieces = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        if pieces.count == 2, (Int(pieces[1]) ?? 0) <= 0 {
            return "the \(field.name) step \"\(pieces[1])\" must be a positive number"
        }
        let base = pieces[0]
        if base == "*" { return nil }
        guard !base.hasPrefix("-"), !base.hasSuffix("-") else { return "\"\(base)\" is not a valid \(field.name)" }
        let bounds = base.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        var values: [Int] = []
        for bound in bounds {
            guard let value = Int(bound) ?? field.names.firstIndex(of: bound.uppercased()).map({ $0 + field.range.lowerBound }) else {
                return "\"\(bound)\" is not a valid \(field.name)"
            }
            guard field.range.contains(value) else {
                return "the \(field.name) \(value) is outside \(field.range.lowerBound)-\(field.range.upperBound)"
            }
            values.append(value)
        }
        if values.count == 2, values[0] > values[1] { return "the \(field.name) range \(base) runs backwards" }
        return nil
    }
}
