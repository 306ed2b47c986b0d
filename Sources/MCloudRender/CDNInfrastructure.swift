import MCloudCore
import MCloudProvider

/// A CDN in its cloud, with an origin per cluster that runs one of its origin services for its audiences: the
/// Ingress there, weighted by the replicas the cluster runs, so traffic follows the placement.
enum CDNInfrastructure {
    static func resource(_ cdn: CDN, cloud: String, in topology: Topology) -> InfrastructureResource {
        let servedAudiences = cdn.audiences ?? topology.audiences
        var origins: [ObjectNode] = []
        for cell in topology.services where cdn.origins.contains(cell.service.name) {
            guard cell.cell.audience.map(servedAudiences.contains) ?? true, IngressBuilder.backendPort(of: cell.service) != nil else { continue }
            for (originCloud, count) in cell.replicas {
                origins.append([
                    "service": .string(cell.service.name),
                    "cloud": .string(originCloud),
                    "ingress": .string(KubernetesObject.address(
                        cloud: originCloud, IngressBuilder.apiVersion, IngressBuilder.kind, namespace: cell.namespace, name: cell.service.name
                    )),
                    "path": .string(cell.service.expose?.path ?? "/"),
                    "weight": .int(count),
                ])
            }
        }
        let labels = CellLabels(name: cdn.name, instance: cdn.name, application: topology.application, audience: nil)
        return InfrastructureResource(
            kind: .cdnResource, name: "\(Topology.namespace(application: topology.application, audience: nil)).\(cdn.name)",
            cloud: cloud, provider: .cdn, labels: labels.metadata(cloud: cloud),
            spec: [
                ("audiences", .list(servedAudiences.map(ObjectNode.string))),
                ("origins", .list(origins)),
                ("cache", .list(cdn.cache.map { ["path": .string($0.path), "ttlSeconds": .int($0.ttlSeconds)] })),
            ]
        )
    }
}
