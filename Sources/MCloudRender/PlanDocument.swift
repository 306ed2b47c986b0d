public import MCloudCore
public import MCloudPlanner

/// The plan as the documented JSON of cli.md: what `plan --json` prints and what the human view is drawn from,
/// so the two never disagree.
public enum PlanDocument {
    public static let formatVersion = "1.0"

    public static func json(_ plan: PlacementPlan) -> JSONValue {
        let why = Dictionary(plan.explanations.map { ($0.cell, $0.why) }, uniquingKeysWith: { first, _ in first })
        var placement = plan.placementJSON
        if case .object(var pairs) = placement, let index = pairs.firstIndex(where: { $0.0 == "cells" }) {
            let cells = pairs[index].1.objectPairs.map { cell, value -> (String, JSONValue) in
                guard case .object(var fields) = value, let reason = why[cell] else { return (cell, value) }
                fields.append(("why", .string(reason)))
                return (cell, .object(fields))
            }
            pairs[index].1 = .object(cells)
            placement = .object(pairs)
        }
        return .object([
            ("format_version", .string(formatVersion)),
            ("application", .string(plan.application)),
            ("placement", placement),
            ("explanations", plan.explanationsJSON),
            ("resource_changes", .array([])),
            ("summary", .object([("create", .int(0)), ("update", .int(0)), ("replace", .int(0)), ("delete", .int(0))])),
        ])
    }
}
