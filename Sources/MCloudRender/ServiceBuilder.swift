import MCloudCore

/// The Service in front of a cell's pods in one cluster; nil when the workload declares no ports.
enum ServiceBuilder {
    static func build(_ context: CellOnCloud) -> KubernetesObject? {
        let ports = context.cell.service.ports
        guard !ports.isEmpty else { return nil }
        return KubernetesObject(
            "v1", "Service", name: KubernetesName.service(context.name), namespace: context.namespace, labels: context.metadata,
            content: [
                ("spec", [
                    "selector": context.selector,
                    "ports": .list(ports.map {
                        ["name": .string($0.name), "port": .int($0.port), "targetPort": .string($0.name), "protocol": .string($0.transport.rawValue)]
                    }),
                ]),
            ]
        )
    }
}
