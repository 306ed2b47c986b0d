public import MCloudCore

/// A connection as the plan document writes it (docs/cli.md, `connections`), and read back from a saved plan.
extension Connection {
    public var json: JSONValue {
        .object([
            ("dependent", .object([
                ("cell", .string(dependent.cell.name)), ("cloud", .string(dependent.cloud)), ("namespace", .string(dependent.namespace)),
            ])),
            ("target", targetJSON),
            ("route", routeJSON),
            ("name", .string(name)),
            ("crosses_clouds", .bool(crossesClouds)),
            ("egress_cidrs", .array(egressCIDRs.map(JSONValue.string))),
        ])
    }

    private var targetJSON: JSONValue {
        switch target {
        case .database(let cell, let engine, let port):
            .object([("cell", .string(cell.name)), ("kind", .string(cell.kind.rawValue)), ("engine", .string(engine)), ("port", port.map(JSONValue.int) ?? .null)])
        case .service(let cell, let ports):
            .object([
                ("cell", .string(cell.name)), ("kind", .string(cell.kind.rawValue)),
                ("ports", .array(ports.map { .object([("name", .string($0.name)), ("port", .int($0.port)), ("protocol", .string($0.transport.rawValue))]) })),
            ])
        }
    }

    private var routeJSON: JSONValue {
        switch route {
        case .databaseServer(let cloud, let server):
            .object([("kind", .string("database_server")), ("cloud", .string(cloud)), ("resource", .string(server))])
        case .managedEndpoint(let cloud, let database):
            .object([("kind", .string("managed_endpoint")), ("cloud", .string(cloud)), ("resource", .string(database))])
        case .clusterService:
            .object([("kind", .string("cluster_service"))])
        case .clusterSet(let set, let clouds):
            .object([("kind", .string("cluster_set")), ("set", .string(set)), ("clouds", .array(clouds.map(JSONValue.string)))])
        case .ingress(let clouds, let port):
            .object([("kind", .string("ingress")), ("clouds", .array(clouds.map(JSONValue.string))), ("port", .int(port))])
        }
    }

    /// A connection of a saved plan; nil when `json` is not one this version writes.
    public init?(json: JSONValue) {
        let dependent = json["dependent"] ?? .null
        let target = json["target"] ?? .null
        let routeJSON = json["route"] ?? .null
        guard let dependentCell = dependent["cell"]?.stringValue.flatMap({ Self.cell($0, .service) }),
            let cloud = dependent["cloud"]?.stringValue, let namespace = dependent["namespace"]?.stringValue,
            let targetName = target["cell"]?.stringValue, let kind = target["kind"]?.stringValue.flatMap(Cell.Kind.init(rawValue:)),
            let targetCell = Self.cell(targetName, kind), let name = json["name"]?.stringValue, let route = Self.route(routeJSON)
        else { return nil }
        let parsedTarget: Target
        switch kind {
        case .database:
            guard let engine = target["engine"]?.stringValue else { return nil }
            parsedTarget = .database(targetCell, engine: engine, port: target["port"]?.intValue)
        case .service:
            let ports = (target["ports"]?.arrayItems ?? []).compactMap { port -> Service.Port? in
                guard let name = port["name"]?.stringValue, let number = port["port"]?.intValue,
                    let transport = port["protocol"]?.stringValue.flatMap(Service.Port.TransportProtocol.init(rawValue:)) else { return nil }
                return Service.Port(name: name, port: number, transport: transport)
            }
            parsedTarget = .service(targetCell, ports: ports)
        }
        self.init(
            dependent: Dependent(cell: dependentCell, cloud: cloud, namespace: namespace), target: parsedTarget, route: route, name: name,
            crossesClouds: json["crosses_clouds"] == .bool(true), egressCIDRs: (json["egress_cidrs"]?.arrayItems ?? []).compactMap(\.stringValue)
        )
    }

    private static func route(_ json: JSONValue) -> Route? {
        let clouds = (json["clouds"]?.arrayItems ?? []).compactMap(\.stringValue)
        switch json["kind"]?.stringValue {
        case "database_server":
            guard let cloud = json["cloud"]?.stringValue, let resource = json["resource"]?.stringValue else { return nil }
            return .databaseServer(cloud: cloud, server: resource)
        case "managed_endpoint":
            guard let cloud = json["cloud"]?.stringValue, let resource = json["resource"]?.stringValue else { return nil }
            return .managedEndpoint(cloud: cloud, database: resource)
        case "cluster_service": return .clusterService
        case "cluster_set": return json["set"]?.stringValue.map { .clusterSet($0, clouds: clouds) }
        case "ingress": return json["port"]?.intValue.map { .ingress(clouds: clouds, port: $0) }
        default: return nil
        }
    }

    /// `payments-db@eu` as a cell of `kind`.
    private static func cell(_ name: String, _ kind: Cell.Kind) -> Cell? {
        let parts = name.split(separator: "@", omittingEmptySubsequences: false).map(String.init)
        guard let workload = parts.first, !workload.isEmpty, parts.count <= 2 else { return nil }
        return Cell(workload: workload, kind: kind, audience: parts.count == 2 ? parts[1] : nil)
    }
}
