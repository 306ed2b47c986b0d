import MCloudCore
import MCloudPolicy
import MCloudViews

/// What a placement-only plan says about itself: it placed the manifests and read no state and no cloud, either
/// because it was asked to (`plan --placement-only`) or because the catalog has no endpoints for clouds the placement
/// uses and there is no state (a what-if on a price list).
enum PlacementOnly {
    static let requested = "--placement-only reads no state and no cloud and needs no credentials, so no resource changes were planned"

    /// The placement-only plan document. Each Policy rule the placement alone can judge (a cost ceiling, residency)
    /// gets its verdict on the placement's cost and cells; rules about the state (deletes, moves, a cost increase)
    /// say they were not judged. Like a deployment plan's, the document has a `policy` even without rules.
    static func document(_ report: PlacementReport, model: Model, note: String) -> PlanDocument {
        var document = PlanDocument(placementOnly: report, application: model.application.name, note: note)
        // The cost goes to the rules only: the placement lists its own cost, and there is none recorded to compare.
        var judged = document
        judged.cost = CostDiff(recorded: nil, after: report.cost, currency: model.application.currency, rate: model.application.rate(for:))
        document.policy = PolicyChecker.check(model, document: judged, recorded: nil)
        return document
    }

    static func missingEndpoints(_ clouds: [String]) -> String {
        "\(list(clouds)) no endpoints in the catalog and there is no state, so this is where everything would run; no resource changes were planned (give those clouds endpoints to plan them)"
    }

    /// `cloud a has`, `clouds a, b and 3 more have`.
    static func list(_ clouds: [String]) -> String {
        guard clouds.count > 1 else { return "cloud \(clouds.first ?? "") has" }
        let shown = clouds.prefix(4).joined(separator: ", ")
        return "clouds \(shown)\(clouds.count > 4 ? " and \(clouds.count - 4) more" : "") have"
    }
}
