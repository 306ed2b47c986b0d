public import MCloudCore

/// Why a CDN went to its cloud: every cloud with a point of presence in each of its audiences' jurisdictions, with
/// what the CDN would cost there, and every other cloud's reasons (`mcloud explain CDN`). A CDN takes no capacity and
/// has no edges, so its cost in a cloud is its traffic at that cloud's `cdnGiB`, whatever else is placed.
public struct CDNExplanation: Sendable {
    public struct Candidate: Sendable, Hashable {
        public var cloud: String
        public var monthly: Double
        /// The cloud's PoPs, by jurisdiction tag.
        public var pops: [String]
    }

    public var cdn: String
    /// The jurisdictions it must reach, one per audience it serves: `RU (audience ru)`.
    public var reaches: [String]
    /// Cheapest first, then by name.
    public var candidates: [Candidate]
    /// Every other cloud, by name, with every reason.
    public var rejected: [(cloud: String, reasons: [Reason])]

    /// Nil when the model has no CDN of that name.
    public init?(cdn name: String, in model: Model, lost: Set<String> = []) {
        let problem = PlanningProblem(model: model, lost: lost)
        guard let cell = problem.cdns.first(where: { $0.cdn.name == name }) else { return nil }
        let audiences = model.application.audiences.filter { (cell.cdn.audiences ?? model.application.audiences.map(\.name)).contains($0.name) }
        cdn = name
        reaches = audiences.map { "\($0.jurisdiction) (audience \($0.name))" }
        candidates = cell.allowed.map { index in
            Candidate(cloud: problem.clouds[index].cloud.name, monthly: cell.cost[index], pops: problem.clouds[index].cloud.offers.cdnPops ?? [])
        }.sorted { ($0.monthly, $0.cloud) < ($1.monthly, $1.cloud) }
        rejected = problem.clouds.compactMap { info in
            let reasons = problem.filters.cdnReasons(cell.cdn, info)
            return reasons.isEmpty ? nil : (cloud: info.cloud.name, reasons: reasons)
        }
    }
}
