import MCloudCore

/// The Ingress of a public service in one cluster, routing `expose.path` to its Service. It names no class, so the
/// cluster's default IngressClass serves it, and no host, which the CDN or DNS in front decides.
enum IngressBuilder {
    static let apiVersion = "networking.k8s.io/v1"
    static let kind = "Ingress"

    /// The port public traffic reaches: the TCP port named `http`, else the first TCP port; nil when public
    /// traffic cannot reach the service (not public, or no TCP port).
    static func backendPort(of service: Service) -> Service.Port? {
        guard service.isPublic else { return nil }
        let tcp = service.ports.filter { $0.transport == .TCP }
        return tcp.first { $0.name == "http" } ?? tcp.first
    }

    static func build(_ context: CellOnCloud) -> KubernetesObject? {
        let service = context.cell.service
        guard let port = backendPort(of: service) else { return nil }
        let path: ObjectNode = [
            "path": .string(service.expose?.path ?? "/"),
            "pathType": "Prefix",
            "backend": ["service": ["name": .string(KubernetesName.service(service.name)), "port": ["name": .string(port.name)]]],
        ]
        return KubernetesObject(
            apiVersion, kind, name: context.name, namespace: context.namespace, labels: context.metadata,
            content: [("spec", ["rules": [["http": ["paths": [path]]]]])]
        )
    }
}
