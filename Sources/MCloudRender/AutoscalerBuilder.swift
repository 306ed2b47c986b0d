import MCloudCore

/// The HorizontalPodAutoscaler of a cell in one cluster, with this cloud's part of the cell's min and max; nil
/// when the workload does not autoscale.
enum AutoscalerBuilder {
    static func build(_ context: CellOnCloud) -> KubernetesObject? {
        guard let autoscale = context.cell.service.autoscale else { return nil }
        let placement = context.cell.replicas
        let bounds = ReplicaSplit.split(min: autoscale.min, max: autoscale.max, replicas: placement.map(\.count))
        guard let here = placement.firstIndex(where: { $0.cloud == context.cloud }) else { return nil }
        return KubernetesObject(
            "autoscaling/v2", "HorizontalPodAutoscaler", name: context.name, namespace: context.namespace, labels: context.metadata,
            content: [
                ("spec", [
                    "scaleTargetRef": ["apiVersion": "apps/v1", "kind": "Deployment", "name": .string(context.name)],
                    "minReplicas": .int(bounds[here].min),
                    "maxReplicas": .int(bounds[here].max),
                    "metrics": [[
                        "type": "Resource",
                        "resource": ["name": "cpu", "target": ["type": "Utilization", "averageUtilization": .int(autoscale.targetCPU)]],
                    ]],
                ]),
            ]
        )
    }
}
