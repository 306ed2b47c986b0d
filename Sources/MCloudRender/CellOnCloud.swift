import MCloudCore

/// One service cell as one cluster sees it: the cell, the cloud, how many replicas it runs there, and its labels.
struct CellOnCloud {
    let topology: Topology
    /// The cell's index in `topology.services`.
    let index: Int
    let cloud: String
    let replicas: Int
    let labels: CellLabels
    /// `labels.metadata(cloud:)` and `labels.selector`, built and written once for all the cell's objects.
    let metadata: ObjectNode
    let selector: ObjectNode
    /// The cells it reaches by address from this cloud, whose egress has a policy of its own.
    let addressed: Set<String>

    init(topology: Topology, index: Int, cloud: String, addressed: Set<String>) {
        self.addressed = addressed
        self.topology = topology
        self.index = index
        self.cloud = cloud
        let cell = topology.services[index]
        replicas = cell.count(on: cloud)
        labels = CellLabels(cell: cell.cell, application: topology.application, workloadLabels: cell.service.labels)
        metadata = .shared(SharedMapping(labels.metadata(cloud: cloud).fields))
        selector = .shared(SharedMapping(labels.selector.fields))
    }

    var cell: Topology.ServiceCell { topology.services[index] }
    var name: String { cell.service.name }
    var namespace: String { cell.namespace }
}
