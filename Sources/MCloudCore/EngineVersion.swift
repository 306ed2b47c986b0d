/// Engine versions as manifests and catalogs write them (`"16"`, `"8.0"`, `"7.2"`): dotted numbers compared on the
/// parts both give, so an offer of `16` covers a manifest's `16.4` and an offer of `8.0.36` a manifest's `8.0`, while
/// `9.1` is not `9.6` and `16` is not `1`.
public enum EngineVersion {
    public static func covers(offered: String, wanted: String) -> Bool {
        let offeredParts = parts(offered)
        let wantedParts = parts(wanted)
        let shared = min(offeredParts.count, wantedParts.count)
        return shared > 0 && offeredParts.prefix(shared) == wantedParts.prefix(shared)
    }

    /// The series a release belongs to, as catalogs list them: PostgreSQL's major from 10 on (`16` of `16.4`, `9.6` of
    /// `9.6.24`, as PostgreSQL numbered them), every other engine's first two parts (`8.0` of `8.0.39`, `7.2` of `7.2.4`).
    public static func series(_ version: String, engine: String) -> String {
        let all = parts(version)
        let postgresMajor = engine == "postgresql" && (Int(all.first ?? "") ?? 0) >= 10
        return all.prefix(postgresMajor ? 1 : 2).joined(separator: ".")
    }

    private static func parts(_ version: String) -> [Substring] {
        version.split(separator: ".", omittingEmptySubsequences: false)
    }
}
