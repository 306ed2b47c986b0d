public import MCloudCore

/// What a database VM's backup job writes to `<server>/status.json` in its DR bucket after every run (see
/// `DatabaseUserData`), read back by the bucket's provider: when it last ran, when it last worked, that backup's
/// object, size and SHA-256, and the last run's error. Times are UTC seconds since 1970.
public struct BackupStatus: Sendable, Hashable {
    public var server: String
    public var lastAttempt: Int?
    public var lastSuccess: Int?
    public var object: String?
    public var size: Int?
    public var sha256: String?
    /// The last run's failure; nil when it worked.
    public var error: String?

    public init(server: String, lastAttempt: Int? = nil, lastSuccess: Int? = nil, object: String? = nil, size: Int? = nil, sha256: String? = nil, error: String? = nil) {
        self.server = server
        self.lastAttempt = lastAttempt
        self.lastSuccess = lastSuccess
        self.object = object
        self.size = size
        self.sha256 = sha256
        self.error = error
    }

    /// The status object's JSON; nil when it is not one.
    public init?(json text: String) {
        guard let document = try? JSONParser.parse(Array(text.utf8)), let server = document["server"]?.stringValue else { return nil }
        self.init(
            server: server, lastAttempt: document["lastAttempt"]?.stringValue.flatMap(Self.time), lastSuccess: document["lastSuccess"]?.stringValue.flatMap(Self.time),
            object: document["object"]?.stringValue, size: document["size"]?.intValue, sha256: document["sha256"]?.stringValue,
            error: document["error"]?.stringValue
        )
    }

    /// The fields a refreshed BackupBucket carries under `status.backups`, times as the job wrote them.
    public var document: JSONValue {
        var pairs: [(String, JSONValue)] = [("server", .string(server))]
        if let lastAttempt { pairs.append(("lastAttempt", .string(Self.text(lastAttempt)))) }
        if let lastSuccess { pairs.append(("lastSuccess", .string(Self.text(lastSuccess)))) }
        if let object { pairs.append(("object", .string(object))) }
        if let size { pairs.append(("size", .int(size))) }
        if let sha256 { pairs.append(("sha256", .string(sha256))) }
        if let error { pairs.append(("error", .string(error))) }
        return .object(pairs)
    }

    /// `2026-12-01T10:00:00Z` as seconds since 1970; nil for anything else.
    public static func time(_ text: String) -> Int? {
        let parts = text.split(whereSeparator: { "-T:Z".contains($0) }).map { Int($0) }
        guard text.count == 20, text.hasSuffix("Z"), parts.count == 6, let year = parts[0], let month = parts[1], let day = parts[2],
              let hour = parts[3], let minute = parts[4], let second = parts[5], (1...12).contains(month),
              (1...CivilDate.daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
        return CivilDate(year: year, month: month, day: day).daysSince1970 * 86400 + hour * 3600 + minute * 60 + second
    }

    /// Seconds since 1970 as `2026-12-01T10:00:00Z`.
    public static func text(_ time: Int) -> String {
        let days = Int((Double(time) / 86400).rounded(.down))
        let date = CivilDate(daysSince1970: days)
        let ofDay = time - days * 86400
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(date.year)-\(two(date.month))-\(two(date.day))T\(two(ofDay / 3600)):\(two(ofDay % 3600 / 60)):\(two(ofDay % 60))Z"
    }
}
