/// What a placement-only plan says about itself: it placed the manifests and read no state and no cloud, either
/// because it was asked to (`plan --placement-only`) or because the catalog has no endpoints for clouds the placement
/// uses and there is no state (a what-if on a price list).
enum PlacementOnly {
    static let requested = "--placement-only reads no state and no cloud and needs no credentials, so no resource changes were planned"

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
