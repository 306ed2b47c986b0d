import MCloudCore
import MCloudDatabaseEngines

/// The Deployment of a cell in one cluster: the replicas the planner gave that cloud, and the pod the Service asks for.
enum DeploymentBuilder {
    /// `endpoints` names the cell's endpoints ConfigMap, which the pods read through `envFrom`, and a hash of its
    /// data, which goes on the pod template so a moved database primary rolls the pods onto the new address.
    /// `secrets` are the cell's connection Secrets in this cluster: each gives the pods its user, password, database
    /// and URI as variables, and its CA as a file (`ConnectionSecret.mountPath`); a hash of their edges goes on the
    /// pod template, so the pods roll when a Secret's values change.
    static func build(_ context: CellOnCloud, endpoints: (name: String, hash: String)?, secrets: [ConnectionSecret] = []) -> KubernetesObject {
        let selector = context.selector
        var podMetadata: [(String, ObjectNode)] = [("labels", context.metadata)]
        var annotations: [(String, ObjectNode)] = []
        if let endpoints { annotations.append(("mcloud.io/endpoints-hash", .string(endpoints.hash))) }
        // A changed edge (user, host, generation) changes the Secret's values, which pods read only as they start. Not
        // `secrets-hash`: a secret-looking name would be redacted in the state and read as drift on every plan.
        if !secrets.isEmpty {
            annotations.append(("mcloud.io/connections-hash", .string(StableHash.hex(secrets.map(\.edge.annotationValue).sorted().joined(separator: "\n"), digits: 16))))
        }
        if !annotations.isEmpty { podMetadata.append(("annotations", .map(annotations))) }
        var pod: [(String, ObjectNode)] = [
            // No service in the model talks to the Kubernetes API, so its pods get no token to lose.
            ("automountServiceAccountToken", false),
            ("securityContext", ["seccompProfile": ["type": "RuntimeDefault"]]),
            // Spread over the cloud's zones where it has several; never block scheduling over it.
            ("topologySpreadConstraints", [[
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": ["matchLabels": selector],
            ]]),
            ("containers", [container(context.cell.service, endpoints: endpoints?.name, secrets: secrets)]),
        ]
        let authorities = secrets.filter { $0.edge.tls == .verified }
        if !authorities.isEmpty {
            // Only the CA's key is projected: the password reaches the pods as a variable, never as a file. A
            // connection whose server no CA of mcloud's signed has no CA to mount.
            pod.append(("volumes", .list(authorities.map { secret in
                [
                    "name": .string(volumeName(secret)),
                    "secret": ["secretName": .string(secret.name), "items": [["key": .string(ClientAccess.authorityKey), "path": .string(ClientAccess.authorityKey)]]],
                ]
            })))
        }
        return KubernetesObject(
            "apps/v1", "Deployment", name: context.name, namespace: context.namespace, labels: context.metadata,
            content: [
                ("spec", [
                    "replicas": .int(context.replicas),
                    "selector": ["matchLabels": selector],
                    // Surge first and never drop below the placed count: a cloud with one replica keeps serving.
                    "strategy": ["type": "RollingUpdate", "rollingUpdate": ["maxSurge": "25%", "maxUnavailable": 0]],
                    "template": ["metadata": .map(podMetadata), "spec": .map(pod)],
                ]),
            ]
        )
    }

    /// The variables a connection Secret gives: `PAYMENTS_DB_USER`, `_PASSWORD`, `_DATABASE` and `_URI` (`_HOST` and
    /// `_PORT` are the endpoints ConfigMap's).
    static let secretVariables = [("USER", "user"), ("PASSWORD", "password"), ("DATABASE", "database"), ("URI", "uri")]

    private static func volumeName(_ secret: ConnectionSecret) -> String {
        KubernetesName.fit("ca-\(secret.name)")
    }

    private static func container(_ service: Service, endpoints: String?, secrets: [ConnectionSecret]) -> ObjectNode {
        var fields: [(String, ObjectNode)] = [("name", .string(service.name)), ("image", .string(service.image))]
        if !service.ports.isEmpty {
            fields.append(("ports", .list(service.ports.map {
                ["name": .string($0.name), "containerPort": .int($0.port), "protocol": .string($0.transport.rawValue)]
            })))
        }
        let env = service.env.map { ["name": .string($0.name), "value": .string($0.value)] as ObjectNode } + secrets.flatMap { secret in
            secretVariables.map { suffix, key -> ObjectNode in
                ["name": .string("\(secret.environmentPrefix)_\(suffix)"), "valueFrom": ["secretKeyRef": ["name": .string(secret.name), "key": .string(key)]]]
            }
        }
        if !env.isEmpty { fields.append(("env", .list(env))) }
        if let endpoints {
            fields.append(("envFrom", [["configMapRef": ["name": .string(endpoints)]]]))
        }
        fields.append(("resources", resources(service.resources)))
        let authorities = secrets.filter { $0.edge.tls == .verified }
        if !authorities.isEmpty {
            fields.append(("volumeMounts", .list(authorities.map { ["name": .string(volumeName($0)), "mountPath": .string($0.mountPath), "readOnly": true] })))
        }
        if let probe = service.readinessProbe { fields.append(("readinessProbe", httpGet(probe))) }
        if let probe = service.livenessProbe { fields.append(("livenessProbe", httpGet(probe))) }
        fields.append(("securityContext", ["allowPrivilegeEscalation": false]))
        return .map(fields)
    }

    private static func resources(_ resources: Service.Resources) -> ObjectNode {
        var fields: [(String, ObjectNode)] = [
            ("requests", ["cpu": .string(resources.cpu.description), "memory": .string(resources.memory.description)]),
        ]
        var limits: [(String, ObjectNode)] = []
        if let cpu = resources.limitCPU { limits.append(("cpu", .string(cpu.description))) }
        if let memory = resources.limitMemory { limits.append(("memory", .string(memory.description))) }
        if !limits.isEmpty { fields.append(("limits", .map(limits))) }
        return .map(fields)
    }

    /// A probe names its port as the manifest did: by number or by the port's name.
    private static func httpGet(_ probe: Service.Probe) -> ObjectNode {
        ["httpGet": ["path": .string(probe.path), "port": Int(probe.port).map(ObjectNode.int) ?? .string(probe.port)]]
    }
}
