/// The PodDisruptionBudget of a cell in one cluster: a node drain takes at most one of its pods at a time.
enum DisruptionBudgetBuilder {
    /// With one replica a budget could only block drains forever or allow the outage anyway, so it needs two.
    static func isNeeded(replicas: Int) -> Bool { replicas >= 2 }

    static func build(_ context: CellOnCloud) -> KubernetesObject? {
        guard isNeeded(replicas: context.replicas) else { return nil }
        return KubernetesObject(
            "policy/v1", "PodDisruptionBudget", name: context.name, namespace: context.namespace, labels: context.metadata,
            content: [("spec", ["maxUnavailable": 1, "selector": ["matchLabels": context.selector]])]
        )
    }
}
