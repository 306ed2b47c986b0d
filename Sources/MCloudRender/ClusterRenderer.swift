import MCloudCore

/// Every Kubernetes object of one cluster: per namespace its Namespace and default-deny policy, per cell placed on
/// the cloud its Deployment and what goes with it, then what makes the names of the connections made there resolve
/// (`ConnectionNameBuilder`). Namespaces in name order, cells in name order within them.
enum ClusterRenderer {
    /// The clouds that run at least one replica, sorted.
    static func clouds(_ topology: Topology) -> [String] {
        Set(topology.services.flatMap { $0.replicas.map(\.cloud) }).sorted()
    }

    /// `names`: the namespaces' connection objects in this cluster, from `ConnectionNameBuilder.objects`; `addressed`,
    /// from `ConnectionNameBuilder.addressed`; `secrets`: the connection Secrets, whose Deployments read them.
    static func objects(
        for cloud: String, in topology: Topology, names: [String: [KubernetesObject]], addressed: [String: Set<String>], secrets: [ConnectionSecret] = []
    ) -> [KubernetesObject] {
        let placed = topology.services.indices.filter { topology.services[$0].count(on: cloud) > 0 }
        let byNamespace = Dictionary(grouping: placed) { topology.services[$0].namespace }
        var objects: [KubernetesObject] = []
        for namespace in byNamespace.keys.sorted() {
            let cells = byNamespace[namespace] ?? []
            let audience = cells.first.flatMap { topology.services[$0].cell.audience }
            objects += NamespaceBuilder.build(namespace: namespace, application: topology.application, audience: audience, cloud: cloud)
            for index in cells {
                let cell = topology.services[index].cell.name
                let context = CellOnCloud(topology: topology, index: index, cloud: cloud, addressed: addressed["\(cell) \(cloud)"] ?? [])
                objects += cellObjects(context, secrets: secrets.filter { $0.cloud == cloud && $0.service == cell })
            }
            objects += names[namespace] ?? []
        }
        return objects
    }

    static func cellObjects(_ context: CellOnCloud, secrets: [ConnectionSecret] = []) -> [KubernetesObject] {
        let configMap = EndpointsBuilder.build(context)
        let endpoints = configMap.map { (name: $0.name, hash: EndpointsBuilder.hash($0)) }
        return [
            DeploymentBuilder.build(context, endpoints: endpoints, secrets: secrets),
            ServiceBuilder.build(context),
            AutoscalerBuilder.build(context),
            DisruptionBudgetBuilder.build(context),
            NetworkPolicyBuilder.build(context),
            IngressBuilder.build(context),
            configMap,
        ].compactMap { $0 }
    }

    /// The cluster's `kustomization.yaml`: every object file and Secret file, sorted.
    static func kustomization(_ objects: [KubernetesObject], secrets: [ConnectionSecret] = []) -> ObjectNode {
        [
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "resources": .list((objects.map(\.path) + secrets.map(\.path)).sorted().map(ObjectNode.string)),
        ]
    }
}
