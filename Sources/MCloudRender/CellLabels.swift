import MCloudCore

/// The labels of what is rendered for one cell, or for a namespace: the recommended `app.kubernetes.io` labels,
/// mcloud's cell, audience and cloud, and the workload's own labels where Kubernetes accepts them.
struct CellLabels {
    static let name = "app.kubernetes.io/name"
    static let instance = "app.kubernetes.io/instance"
    static let partOf = "app.kubernetes.io/part-of"
    static let managedBy = "app.kubernetes.io/managed-by"
    static let cell = "mcloud.io/cell"
    static let audience = "mcloud.io/audience"
    static let cloud = "mcloud.io/cloud"

    let nameValue: String
    let instanceValue: String
    let application: String
    let cellValue: String?
    let audienceValue: String?
    let workloadLabels: [(String, String)]

    /// For a cell: `name` is the workload, `instance` the cell (`payments-api.ru`: label values cannot hold `@`).
    init(cell: Cell, application: String, workloadLabels: [String: String]) {
        nameValue = cell.workload
        instanceValue = Self.instance(of: cell)
        self.application = application
        cellValue = instanceValue
        audienceValue = cell.audience
        // Ours win: a workload label may not pose as a recommended or mcloud label.
        self.workloadLabels = workloadLabels.filter { key, value in
            KubernetesName.isLabelKey(key) && KubernetesName.isLabelValue(value)
                && !key.hasPrefix("app.kubernetes.io/") && !key.hasPrefix("mcloud.io/")
        }.map { ($0.key, $0.value) }
    }

    /// For a namespace and what spans it: `name` is the application, `instance` the namespace.
    init(namespace: String, application: String, audience: String?) {
        self.init(name: application, instance: namespace, application: application, audience: audience)
    }

    /// For what is named within the application, such as a CDN: `name` and `instance` are that name.
    init(name: String, instance: String, application: String, audience: String?) {
        nameValue = name
        instanceValue = instance
        self.application = application
        cellValue = nil
        audienceValue = audience
        workloadLabels = []
    }

    /// Only what is fixed for the life of a Deployment, whose selector cannot change: which workload, which cell.
    /// Not the cloud (a catalog name that can be renamed while the cluster stays, and it would make one cell's
    /// selectors differ between clusters), not `part-of` or `managed-by` (the namespace already scopes them, and
    /// tooling can change), not workload labels (users edit them).
    var selector: ObjectNode {
        Self.selector(name: nameValue, instance: instanceValue)
    }

    /// The selector of any cell's pods, for network policy peers.
    static func selector(of cell: Cell) -> ObjectNode {
        selector(name: cell.workload, instance: instance(of: cell))
    }

    private static func selector(name: String, instance: String) -> ObjectNode {
        [Self.instance: .string(instance), Self.name: .string(name)]
    }

    private static func instance(of cell: Cell) -> String {
        KubernetesName.fit(cell.audience.map { "\(cell.workload).\($0)" } ?? cell.workload)
    }

    /// Every label, sorted by key; `extra` labels are added as given.
    func metadata(cloud: String, extra: [(String, String)] = []) -> ObjectNode {
        var pairs = [
            (Self.name, nameValue), (Self.instance, instanceValue), (Self.partOf, application), (Self.managedBy, "mcloud"),
            (Self.cloud, cloud),
        ]
        if let cellValue { pairs.append((Self.cell, cellValue)) }
        if let audienceValue { pairs.append((Self.audience, audienceValue)) }
        return .sortedStrings(pairs + workloadLabels + extra)
    }
}
