import MCloudCore

/// Network policies: per namespace one that denies all traffic, per cell one that lets through exactly the edges
/// the model implies. Policies add up, so a team can still add its own (say, for its metrics scraper).
enum NetworkPolicyBuilder {
    static func defaultDeny(namespace: String, labels: ObjectNode) -> KubernetesObject {
        KubernetesObject(
            "networking.k8s.io/v1", "NetworkPolicy", name: "default-deny", namespace: namespace, labels: labels,
            content: [("spec", ["podSelector": [:], "policyTypes": ["Ingress", "Egress"]])]
        )
    }

    /// Named `allow-<workload>`, so it can never take the name `default-deny`.
    ///
    /// Ingress: public traffic on the Ingress backend port; the pods of dependent cells in this cluster on every
    /// port; and, when a dependent runs in a cluster where this cell does not, the service's ports from that cluster's
    /// egress addresses (the catalog's `egressCIDRs`), since traffic from another cluster has no pod to select; from
    /// any source only for a cluster whose egress addresses the catalog does not give. Egress: DNS; each dependency
    /// in this cluster by its pods; dependencies reached by address (databases, services through their Ingress) have
    /// a policy each (`egress`); the rest outside it (services through a cluster set, and anything in a cluster
    /// that is not wired) by port alone, as their addresses are the set's.
    static func build(_ context: CellOnCloud) -> KubernetesObject {
        let topology = context.topology
        let cell = context.cell
        let ports = cell.service.ports.map(PolicyPort.init)

        var ingress: [ObjectNode] = []
        if let port = IngressBuilder.backendPort(of: cell.service) {
            ingress.append(["ports": [PolicyPort(port).node]])
        }
        let dependents = topology.serviceDependents[context.index].sorted().map { topology.services[$0] }
        let local = dependents.filter { $0.count(on: context.cloud) > 0 }
        let remoteClouds = Set(dependents.flatMap { $0.replicas.map(\.cloud) }.filter { cell.count(on: $0) == 0 })
        if !ports.isEmpty, !local.isEmpty {
            ingress.append(["from": .list(local.map(peer)), "ports": .list(ports.map(\.node))])
        }
        if !ports.isEmpty, !remoteClouds.isEmpty {
            let ranges = remoteClouds.map { topology.clouds[$0]?.endpoints.kubernetesEgressCIDRs ?? [] }
            if ranges.contains(where: \.isEmpty) {
                ingress.append(["ports": .list(ports.map(\.node))])
            } else {
                let blocks = Set(ranges.joined()).sorted().map { cidr -> ObjectNode in ["ipBlock": ["cidr": .string(cidr)]] }
                ingress.append(["from": .list(blocks), "ports": .list(ports.map(\.node))])
            }
        }

        // No `to` on DNS: node-local DNS caches answer on a link-local address of the node, not from a pod.
        var egress: [ObjectNode] = [["ports": [PolicyPort(transport: "UDP", port: 53).node, PolicyPort(transport: "TCP", port: 53).node]]]
        var outside: Set<PolicyPort> = []
        for dependency in topology.serviceDependencies[context.index].sorted().map({ topology.services[$0] }) where !context.addressed.contains(dependency.cell.name) {
            let dependencyPorts = dependency.service.ports.map(PolicyPort.init)
            guard !dependencyPorts.isEmpty else { continue }
            if dependency.count(on: context.cloud) > 0 {
                egress.append(["to": [peer(dependency)], "ports": .list(dependencyPorts.map(\.node))])
            } else {
                outside.formUnion(dependencyPorts)
            }
        }
        for database in topology.databaseDependencies[context.index].map({ topology.databases[$0] }) where !context.addressed.contains(database.cell.name) {
            // An engine without a known port gets every TCP port rather than a broken connection.
            outside.insert(PolicyPort(transport: "TCP", port: DatabaseEndpoint.port(database)))
        }
        if !outside.isEmpty { egress.append(["ports": .list(outside.sorted().map(\.node))]) }

        var spec: [(String, ObjectNode)] = [
            ("podSelector", ["matchLabels": context.selector]),
            ("policyTypes", ["Ingress", "Egress"]),
        ]
        if !ingress.isEmpty { spec.append(("ingress", .list(ingress))) }
        spec.append(("egress", .list(egress)))
        return KubernetesObject(
            "networking.k8s.io/v1", "NetworkPolicy", name: "allow-\(context.name)", namespace: context.namespace,
            labels: context.metadata, content: [("spec", .map(spec))]
        )
    }

    /// `allow-<workload>-to-<name>`: the cell's egress to one connection's addresses on its port (every TCP port for
    /// an engine mcloud does not know), open to any address as rendered; apply narrows it to the addresses the
    /// providers report for what the annotation names (docs/security.md, M7).
    static func egress(name: String, namespace: String, labels: ObjectNode, selector: ObjectNode, port: Int?, annotations: ObjectNode) -> KubernetesObject {
        KubernetesObject(
            "networking.k8s.io/v1", "NetworkPolicy", name: name, namespace: namespace, labels: labels, annotations: annotations,
            content: [("spec", [
                "podSelector": ["matchLabels": selector], "policyTypes": ["Egress"],
                "egress": [["ports": [PolicyPort(transport: "TCP", port: port).node]]],
            ])]
        )
    }

    private static func peer(_ cell: Topology.ServiceCell) -> ObjectNode {
        [
            "namespaceSelector": ["matchLabels": ["kubernetes.io/metadata.name": .string(cell.namespace)]],
            "podSelector": ["matchLabels": CellLabels.selector(of: cell.cell)],
        ]
    }

    /// A port of a policy rule; without a number it stands for every port of the protocol.
    private struct PolicyPort: Hashable, Comparable {
        var transport: String
        var port: Int?

        init(transport: String, port: Int?) {
            self.transport = transport
            self.port = port
        }

        init(_ port: Service.Port) {
            self.init(transport: port.transport.rawValue, port: port.port)
        }

        static func < (lhs: PolicyPort, rhs: PolicyPort) -> Bool {
            (lhs.transport, lhs.port ?? 0) < (rhs.transport, rhs.port ?? 0)
        }

        var node: ObjectNode {
            guard let port else { return ["protocol": .string(transport)] }
            return ["protocol": .string(transport), "port": .int(port)]
        }
    }
}
