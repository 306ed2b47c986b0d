/// A five-field cron schedule (minute hour day-of-month month day-of-week) or an @-shorthand, read as the backup
/// job's cron reads it: `problem(in:)` says why a text is not one, `latestRun(atOrBefore:)` when it last fired, which
/// is how a plan tells a DR leg whose backups stopped.
public struct CronSchedule: Sendable, Hashable {
    private static let shorthands: [String: String] = [
        "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
        "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
    ]
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

    private var minutes: Set<Int>
    private var hours: Set<Int>
    private var daysOfMonth: Set<Int>
    private var monthsOfYear: Set<Int>
    private var daysOfWeek: Set<Int>
    /// cron's rule: with both day fields restricted a day matches either; a field written from `*` does not restrict.
    private var dayOfMonthIsStar: Bool
    private var dayOfWeekIsStar: Bool

    /// The schedule, or nil when `text` is not one (`problem(in:)` says why).
    public init?(_ text: String) {
        guard Self.problem(in: text) == nil else { return nil }
        let trimmed = Self.trimmed(text)
        let parts = (Self.shorthands[trimmed] ?? trimmed).split(whereSeparator: { $0 == " " || $0 == "\t" })
        let sets = zip(parts, Self.fields).map { part, field in Self.values(part, field) }
        minutes = sets[0]
        hours = sets[1]
        daysOfMonth = sets[2]
        monthsOfYear = sets[3]
        daysOfWeek = Set(sets[4].map { $0 % 7 })
        dayOfMonthIsStar = parts[2].hasPrefix("*")
        dayOfWeekIsStar = parts[4].hasPrefix("*")
    }

    /// Why `text` is not a schedule, or nil when it is one.
    public static func problem(in text: String) -> String? {
        let trimmed = trimmed(text)
        if trimmed.hasPrefix("@") {
            return shorthands[trimmed] != nil ? nil : "unknown shorthand \(trimmed) (use @hourly, @daily, @weekly, @monthly or @yearly)"
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

    /// The last minute at or before `time` (seconds since 1970, UTC) when the schedule fires, looking back at most
    /// `limitDays`; nil when it does not fire in that span (`0 0 30 2 *`).
    public func latestRun(atOrBefore time: Int, limitDays: Int = 400) -> Int? {
        var minute = Int((Double(time) / 60).rounded(.down))
        let earliest = minute - limitDays * 1440
        while minute >= earliest {
            let (days, ofDay) = (Int((Double(minute) / 1440).rounded(.down)), ((minute % 1440) + 1440) % 1440)
            let date = CivilDate(daysSince1970: days)
            if monthsOfYear.contains(date.month), dayMatches(date) {
                if hours.contains(ofDay / 60), minutes.contains(ofDay % 60) { return minute * 60 }
                minute -= 1
            } else {
                // Skip to the last minute of the day before.
                minute = days * 1440 - 1
            }
        }
        return nil
    }

    /// The longest time between two runs, in seconds, over a fixed span of two years from 2027-01-01, a leap year
    /// included; nil when it runs less than twice in that span (`0 0 29 2 *`). What a schedule's dumps can lose at
    /// most, before the dump's own time.
    public func longestGap() -> Int? {
        let daily = hours.sorted().flatMap { hour in minutes.sorted().map { hour * 60 + $0 } }
        guard let first = daily.first, let last = daily.last else { return nil }
        var longest = zip(daily, daily.dropFirst()).map { $1 - $0 }.max()
        let start = CivilDate(year: 2027, month: 1, day: 1).daysSince1970
        var previous: Int?
        var runningDays = 0
        for day in start..<(start + 731) {
            let date = CivilDate(daysSince1970: day)
            guard monthsOfYear.contains(date.month), dayMatches(date) else { continue }
            if let previous { longest = max(longest ?? 0, (day - previous) * 1440 + first - last) }
            previous = day
            runningDays += 1
        }
        guard runningDays * daily.count >= 2, let longest else { return nil }
        return longest * 60
    }

    private func dayMatches(_ date: CivilDate) -> Bool {
        let byMonth = daysOfMonth.contains(date.day)
        let byWeek = daysOfWeek.contains(date.weekday)
        switch (dayOfMonthIsStar, dayOfWeekIsStar) {
        case (true, true): return true
        case (true, false): return byWeek
        case (false, true): return byMonth
        case (false, false): return byMonth || byWeek
        }
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }

    private static func bound(_ text: Substring, _ field: Field) -> Int? {
        Int(text) ?? field.names.firstIndex(of: text.uppercased()).map { $0 + field.range.lowerBound }
    }

    /// The values one field allows; only called on a field `problem(in:)` accepted.
    private static func values(_ part: Substring, _ field: Field) -> Set<Int> {
        var values: Set<Int> = []
        for item in part.split(separator: ",") {
            let pieces = item.split(separator: "/", maxSplits: 1)
            let step = pieces.count == 2 ? Int(pieces[1]) ?? 1 : 1
            var range = field.range
            if pieces[0] != "*" {
                let bounds = pieces[0].split(separator: "-", maxSplits: 1).compactMap { bound($0, field) }
                let low = bounds.first ?? field.range.lowerBound
                // `5/10` in cron means 5, 15, 25, ...: a start without an end runs to the field's end.
                let high = bounds.count == 2 ? bounds[1] : (pieces.count == 2 ? field.range.upperBound : low)
                range = low...high
            }
            values.formUnion(stride(from: range.lowerBound, through: range.upperBound, by: step))
        }
        return values
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
        for text in bounds {
            guard let value = bound(text, field) else {
                return "\"\(text)\" is not a valid \(field.name)"
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
