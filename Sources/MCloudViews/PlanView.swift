/// What `plan`, `apply` and `show` print: the placement (an apply plan's) and its connections, the cost against the
/// last apply, the policy verdicts, then the changes.
public enum PlanView {
    public static func render(_ document: PlanDocument, explain: Bool, color: Bool) -> String {
        var text = document.placement.map { PlacementView.render($0, application: document.application, explain: explain) + "\n" } ?? ""
        if let connections = document.placement.map({ ConnectionsView.render($0.connections) }), !connections.isEmpty { text += connections + "\n" }
        if let cost = document.cost.map({ CostView.render($0) }), !cost.isEmpty { text += cost + "\n" }
        if let policy = document.policy.map(PolicyView.render), !policy.isEmpty { text += policy + "\n" }
        text += ChangesView.render(document, color: color)
        return text
    }
}
