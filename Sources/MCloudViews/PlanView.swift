/// What `plan`, `apply` and `show` print: the placement (an apply plan's), then the changes.
public enum PlanView {
    public static func render(_ document: PlanDocument, explain: Bool, color: Bool) -> String {
        var text = document.placement.map { PlacementView.render($0, application: document.application, explain: explain) + "\n" } ?? ""
        text += ChangesView.render(document, color: color)
        return text
    }
}
