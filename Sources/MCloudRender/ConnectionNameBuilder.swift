import MCloudCore
import MCloudProvider

/// What makes each connection's name resolve where its dependent runs (docs/connectivity.md, Names). A database, or
/// a service reached through its Ingress in other clusters, gets a Service without a selector in the dependent's
/// namespace, named as the connection is, and an EndpointSlice of mcloud's own for it that names in an annotation
/// the resources whose addresses it is to hold: rendered empty, as those addresses are known only once applied, and
/// filled by apply. A service reached through a cluster set gets a `ServiceExport` in each of the set's clusters
/// that run it, from which the set's controller makes the `ServiceImport` that `<service>.<namespace>.svc.clusterset.local`
/// names. A service with replicas in the dependent's cluster already has its own Service. Each connection to a Service
/// without a selector also gets a NetworkPolicy of its own (`NetworkPolicyBuilder.egress`) that apply narrows to the
/// addresses the slice holds.
enum ConnectionNameBuilder {
    static let endpointSliceAPIVersion = "discovery.k8s.io/v1"
    static let serviceExportAPIVersion = "multicluster.x-k8s.io/v1alpha1"
    /// What an Ingress's load balancer listens on: the Ingress names no TLS, so plain HTTP.
    static let ingressPort = 80

    /// By cloud, then namespace: the objects, in path order, each once however many dependents share it.
    static func objects(_ connections: [Connection], in topology: Topology) -> [String: [String: [KubernetesObject]]] {
        var byAddress: [String: (cloud: String, object: KubernetesObject)] = [:]
        for connection in connections {
            for (cloud, object) in objects(connection, in: topology) {
                byAddress[object.address(cloud: cloud)] = (cloud, object)
            }
        }
        var result: [String: [String: [KubernetesObject]]] = [:]
        for (cloud, object) in byAddress.values.sorted(by: { $0.object.path < $1.object.path }) {
            result[cloud, default: [:]][object.namespace, default: []].append(object)
        }
        return result
    }

    private static func objects(_ connection: Connection, in topology: Topology) -> [(String, KubernetesObject)] {
        let target = connection.target.cell
        let labels = CellLabels(cell: target, application: topology.application, workloadLabels: [:])
        let dependent = connection.dependent
        switch (connection.route, connection.target) {
        case (.databaseServer(_, let source), .database(_, _, let port)), (.managedEndpoint(_, let source), .database(_, _, let port)):
            let ports = port.map { [Port(name: nil, service: $0, endpoint: $0)] } ?? []
            return (selectorless(connection, sources: [ResourceAddress(source)], ports: ports, labels: labels)
                + [egress(connection, sources: [ResourceAddress(source)], port: port, in: topology)]).map { (dependent.cloud, $0) }
        case (.ingress(let clouds, let port), .service(_, let servicePorts)):
            let namespace = Topology.namespace(application: topology.application, audience: target.audience)
            let sources = clouds.map {
                ResourceAddress(KubernetesObject.address(cloud: $0, IngressBuilder.apiVersion, IngressBuilder.kind, namespace: namespace, name: target.workload))
            }
            let name = servicePorts.first { $0.port == port }?.name
            return (selectorless(connection, sources: sources, ports: [Port(name: name, service: port, endpoint: ingressPort)], labels: labels)
                + [egress(connection, sources: sources, port: ingressPort, in: topology)]).map { (dependent.cloud, $0) }
        case (.clusterSet(_, let clouds), _):
            let namespace = Topology.namespace(application: topology.application, audience: target.audience)
            return clouds.map { cloud in
                (cloud, KubernetesObject(
                    serviceExportAPIVersion, "ServiceExport", name: KubernetesName.service(target.workload), namespace: namespace,
                    labels: labels.metadata(cloud: cloud), content: []
                ))
            }
        default:
            return []
        }
    }

    /// The connections whose egress has a policy of its own: by dependent cell and cloud (`payments-api@eu aws-irl`), the
    /// cells they reach.
    static func addressed(_ connections: [Connection]) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for connection in connections {
            switch connection.route {
            case .databaseServer, .managedEndpoint, .ingress:
                result["\(connection.dependent.cell.name) \(connection.dependent.cloud)", default: []].insert(connection.target.cell.name)
            case .clusterService, .clusterSet:
                continue
            }
        }
        return result
    }

    private static func egress(_ connection: Connection, sources: [ResourceAddress], port: Int?, in topology: Topology) -> KubernetesObject {
        let dependent = connection.dependent
        let service = topology.services.first { $0.cell == dependent.cell }?.service
        let labels = CellLabels(cell: dependent.cell, application: topology.application, workloadLabels: service?.labels ?? [:])
        return NetworkPolicyBuilder.egress(
            name: KubernetesName.fit("allow-\(dependent.cell.workload)-to-\(connection.name.prefix { $0 != "." })"), namespace: dependent.namespace,
            labels: labels.metadata(cloud: dependent.cloud), selector: labels.selector, port: port,
            annotations: [ResourceBody.endpointSourcesAnnotation: .string(ResourceBody.endpointSourcesValue(sources))]
        )
    }

    /// A port of the Service and where its slice's endpoints listen for it; without one, the Service is headless, so
    /// its name resolves to the slice's addresses themselves on any port.
    private struct Port {
        var name: String?
        var service: Int
        var endpoint: Int

        func node(_ port: Int) -> ObjectNode {
            .map((name.map { [("name", ObjectNode.string($0))] } ?? []) + [("port", .int(port)), ("protocol", "TCP")])
        }
    }

    private static func selectorless(_ connection: Connection, sources: [ResourceAddress], ports: [Port], labels: CellLabels) -> [KubernetesObject] {
        let name = String(connection.name.prefix { $0 != "." })
        let namespace = connection.dependent.namespace
        let cloud = connection.dependent.cloud
        let spec: ObjectNode = ports.isEmpty ? ["clusterIP": "None"] : ["ports": .list(ports.map { $0.node($0.service) })]
        let service = KubernetesObject("v1", "Service", name: name, namespace: namespace, labels: labels.metadata(cloud: cloud), content: [("spec", spec)])
        let sliceLabels = labels.metadata(cloud: cloud, extra: [
            ("kubernetes.io/service-name", name), ("endpointslice.kubernetes.io/managed-by", ResourceBody.endpointSliceManager),
        ])
        var content: [(String, ObjectNode)] = [("addressType", "IPv4"), ("endpoints", [])]
        if !ports.isEmpty { content.append(("ports", .list(ports.map { $0.node($0.endpoint) }))) }
        let slice = KubernetesObject(
            endpointSliceAPIVersion, "EndpointSlice", name: name, namespace: namespace, labels: sliceLabels,
            annotations: [ResourceBody.endpointSourcesAnnotation: .string(ResourceBody.endpointSourcesValue(sources))], content: content
        )
        return [service, slice]
    }
}
