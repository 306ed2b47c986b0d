import MCloudCore
public import MCloudPlanner

/// `mcloud explain CELL`: why one cell went where it did, what it costs, the runner-up, and every other cloud's
/// reasons.
public enum ExplainView {
    /// Nil when the plan has no cell of that name.
    public static func render(cell: String, in plan: PlacementPlan) -> String? {
        guard let explanation = plan.explanations.first(where: { $0.cell == cell }) else { return nil }
        let currency = plan.cost.currency
        let cost = plan.cost.byCell.first { $0.cell == cell }?.amount ?? 0
        var text = "\(cell) (\(explanation.kind.rawValue))\n"
        text += "  placement: \(placement(of: cell, in: plan))\n"
        text += "  monthly:   \(Money.format(cost, currency))\n"
        text += "  why:       \(explanation.why)\n"
        text += "  runner-up: \(explanation.runnerUp ?? "none: every other cloud breaks a hard rule, listed below")\n"
        text += "  not used:\n"
        for (cloud, reasons) in explanation.rejected {
            for reason in reasons { text += "    \(cloud): \(reason)\n" }
        }
        return text
    }

    private static func placement(of cell: String, in plan: PlacementPlan) -> String {
        if let service = plan.services.first(where: { $0.cell == cell }) {
            return service.replicas.map { "\($0.cloud) \($0.count)" }.joined(separator: ", ")
        }
        if let database = plan.databases.first(where: { $0.cell == cell }) {
            return "primary \(database.primary)" + (database.backup.map { ", backup \($0)" } ?? "")
        }
        return ""
    }
}
