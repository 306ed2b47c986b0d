import MCloudCore

/// What a PostgreSQL primary's `mcloud-archive status` adds to its status object (docs/dr.md, "Archive"): the newest
/// point the archive holds, its base backups as pgBackRest lists them, and the last `pgbackrest verify`: each
/// continuous run of WAL it found, so a missing segment shows as a gap between two runs of one timeline.
public struct ArchiveStatus: Sendable, Hashable {
    public struct BaseBackup: Sendable, Hashable {
        public var label: String
        /// `full`, `diff` or `incr`.
        public var type: String
        /// When it finished, UTC seconds since 1970.
        public var stoppedAt: Int
    }

    /// A continuous run of WAL segments of one archive (`15-1`), first and last by name.
    public struct WALRange: Sendable, Hashable {
        public var archive: String
        public var first: String
        public var last: String
    }

    public struct Verification: Sendable, Hashable {
        public var verifiedAt: Int
        public var ranges: [WALRange]
        /// Why verify failed (a file that does not match its checksum, an unreadable repository); nil when it passed.
        public var error: String?

        /// Where two runs of one timeline leave segments out: the last segment before and the first after.
        public var gaps: [(after: String, before: String)] {
            zip(ranges, ranges.dropFirst()).compactMap { earlier, later in
                earlier.archive == later.archive && earlier.last.prefix(8) == later.first.prefix(8) ? (earlier.last, later.first) : nil
            }
        }
    }

    /// `mcloud-archive status` runs every minute: five missed reports mean the primary, its cron or its way to the
    /// bucket is gone, and the archive may have stopped with it.
    public static let staleAfter = 300

    /// The server whose archive this is.
    public var server: String
    /// The repository's path in the bucket, `<server>/g<generation>`.
    public var repository: String
    /// When the status job last ran, UTC seconds since 1970.
    public var reportedAt: Int?
    public var archivedAt: Int?
    public var archivedWAL: String?
    /// Oldest first.
    public var baseBackups: [BaseBackup]
    /// Nil until a verify has run (after the first full backup).
    public var verification: Verification?

    /// An archive's status object; nil for a dump's, or text that is not one.
    public init?(json text: String) {
        guard let document = try? JSONParser.parse(Array(text.utf8)), let repository = document["repository"]?.stringValue else { return nil }
        self.repository = repository
        server = document["server"]?.stringValue ?? String(repository.split(separator: "/").first ?? "")
        reportedAt = document["lastAttempt"]?.stringValue.flatMap(BackupStatus.time)
        archivedAt = document["archivedAt"]?.stringValue.flatMap(BackupStatus.time)
        archivedWAL = document["archivedWAL"]?.stringValue
        baseBackups = (document["pgbackrest"]?.arrayItems.first?["backup"]?.arrayItems ?? []).compactMap { backup in
            guard let label = backup["label"]?.stringValue, let type = backup["type"]?.stringValue,
                  let stop = backup["timestamp"]?["stop"]?.intValue else { return nil }
            return BaseBackup(label: label, type: type, stoppedAt: stop)
        }
        verification = document["verify"].flatMap { verify in
            guard let at = verify["verifiedAt"]?.stringValue.flatMap(BackupStatus.time) else { return nil }
            let ranges = (verify["walRanges"]?.arrayItems ?? []).compactMap { range -> WALRange? in
                let parts = range.arrayItems.compactMap(\.stringValue)
                guard parts.count == 3 else { return nil }
                return WALRange(archive: parts[0], first: parts[1], last: parts[2])
            }
            return Verification(verifiedAt: at, ranges: ranges, error: verify["error"]?.stringValue)
        }
    }

    /// Why the archive cannot be relied on at `now`: its status job stopped reporting, a gap in its WAL, or a verify
    /// that failed.
    public func problems(now: Int) -> [String] {
        var problems: [String] = []
        if let reportedAt, now - reportedAt > Self.staleAfter {
            problems.append("the archive status of \(server) is \(now - reportedAt) s old (written every minute): its primary is down, its status job stopped or it cannot reach the bucket")
        }
        guard let verification else { return problems }
        let when = BackupStatus.text(verification.verifiedAt)
        problems += verification.gaps.map { "the archive \(repository) misses WAL after \($0.after) and before \($0.before) (pgbackrest verify at \(when)): no point-in-time restore into that span or past it from an earlier base backup" }
        if let error = verification.error { problems.append("pgbackrest verify of \(repository) failed at \(when): \(error)") }
        return problems
    }
}
