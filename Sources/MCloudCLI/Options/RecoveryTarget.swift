import MCloudDatabaseEngines

/// `--to TIME`: drill and failover restore a PostgreSQL archive to that moment instead of its newest point.
enum RecoveryTarget {
    static let option = CommandSpec.Option(
        names: ["--to"], valueName: "TIME",
        help: "Restore to this moment (RFC 3339 in whole seconds: 2026-12-05T22:27:00Z or 2026-12-06T01:27:00+03:00) instead of the newest point; PostgreSQL archives and MariaDB legs with shipped binary logs only."
    )

    /// The moment in UTC (`2026-12-05T22:27:00Z`), nil without `--to`.
    static func time(_ arguments: ParsedArguments) throws(UsageError) -> String? {
        guard let text = arguments.value("--to") else { return nil }
        guard let seconds = seconds(text) else {
            throw UsageError(message: "--to must be an RFC 3339 time in whole seconds with its offset, such as 2026-12-05T22:27:00Z or 2026-12-06T01:27:00+03:00, not \"\(text)\"")
        }
        return BackupStatus.text(seconds)
    }

    /// `YYYY-MM-DDTHH:MM:SS` then `Z` or `+HH:MM`/`-HH:MM`, as UTC seconds since 1970; nil for anything else.
    static func seconds(_ text: String) -> Int? {
        let upper = Array(text.uppercased())
        guard upper.count >= 20, let local = BackupStatus.time(String(upper.prefix(19)) + "Z") else { return nil }
        let zone = Array(upper.dropFirst(19))
        if zone == ["Z"] { return local }
        guard zone.count == 6, zone[0] == "+" || zone[0] == "-", zone[3] == ":",
              [zone[1], zone[2], zone[4], zone[5]].allSatisfy({ $0.isASCII && $0.isNumber }),
              let hours = Int(String(zone[1...2])), let minutes = Int(String(zone[4...5])), hours < 24, minutes < 60 else { return nil }
        let offset = (hours * 60 + minutes) * 60
        return zone[0] == "+" ? local - offset : local + offset
    }
}
