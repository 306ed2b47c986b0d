import MCloudCore
import MCloudProvider

/// The values of `ResourceLabels` for what is rendered for one cell, or for a namespace, and the workload's own
/// labels where Kubernetes accepts them.
struct CellLabels {
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
                && !ResourceLabels.reservedPrefixes.contains { key.hasPrefix($0) }
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
        [ResourceLabels.instance: .string(instance), ResourceLabels.name: .string(name)]
    }

    private static func instance(of cell: Cell) -> String {
        KubernetesName.fit(cell.audience.map { "\(cell.workload).\($0)" } ?? cell.workload)
    }

    /// Every label, sorted by key; `extra` labels are added as given.
    func metadata(cloud: String, extra: [(String, String)] = []) -> ObjectNode {
        var pairs = [
            (ResourceLabels.name, nameValue), (ResourceLabels.instance, instanceValue), (ResourceLabels.partOf, application),
            (ResourceLabels.managedBy, ResourceLabels.manager), (ResourceLabels.cloud, cloud),
        ]
        if let cellValue { pairs.append((ResourceLabels.cell, cellValue)) }
        if let audienceValue { pairs.append((ResourceLabels.audience, audienceValue)) }
        return .sortedStrings(pairs + workloadLabels + extra)
    }
}
