/// Round-trip time between two clouds: what either cloud's `cloudLatencyMs` says of the other, or else a default by
/// how the two are related (docs/manifests.md, "Latency between clouds"). Symmetric by construction: a pair is read
/// from both sides, and a catalog that gives it twice with two values is a validation error.
public enum CloudLatency {
    /// How two clouds are related, nearest first: the first that holds sets the default.
    public enum Relation: String, Sendable, CaseIterable {
        /// One vendor's clouds in the same `region`.
        case sameRegion = "same region"
        /// Clouds with the same set of jurisdiction tags: the same country.
        case sameJurisdiction = "same jurisdiction"
        /// One vendor's clouds in different countries, over its own backbone.
        case sameVendor = "same vendor"
        case other

        /// The round-trip time assumed when neither cloud lists the other; on the high side of what such pairs
        /// measure, so that a pair nobody measured does not pass a tight rule by accident.
        public var defaultMs: Double {
            switch self {
            case .sameRegion: return 2
            case .sameJurisdiction: return 30
            case .sameVendor: return 60
            case .other: return 100
            }
        }
    }

    public static func relation(_ a: Cloud, _ b: Cloud) -> Relation {
        if a.vendor == b.vendor, a.region == b.region { return .sameRegion }
        // The same set of tags, not a shared union: the EU spans 60 ms and more, beyond this default.
        if Set(a.jurisdiction) == Set(b.jurisdiction) { return .sameJurisdiction }
        if a.vendor == b.vendor { return .sameVendor }
        return .other
    }

    /// Two clouds under no common jurisdiction: they share no tag. `[DE, EU]` and `[LU, EU]` share the EU, whose
    /// law (GDPR) moves data between them freely, so an edge between them crosses no border worth a warning.
    public static func crossesBorder(_ a: Cloud, _ b: Cloud) -> Bool {
        Set(a.jurisdiction).isDisjoint(with: b.jurisdiction)
    }

    /// The figure a catalog gives for the pair, from either side; nil when neither lists the other.
    public static func listed(_ a: Cloud, _ b: Cloud) -> Double? {
        a.cloudLatencyMs[b.name] ?? b.cloudLatencyMs[a.name]
    }

    /// 0 within one cloud; the listed figure; else the default of the pair's relation.
    public static func milliseconds(_ a: Cloud, _ b: Cloud) -> Double {
        if a.name == b.name { return 0 }
        return listed(a, b) ?? relation(a, b).defaultMs
    }

    /// Every pair's figure, by the clouds' positions in `clouds`.
    public static func matrix(_ clouds: [Cloud]) -> [[Double]] {
        clouds.map { a in clouds.map { b in milliseconds(a, b) } }
    }
}
