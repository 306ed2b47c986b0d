import MCloudCore

/// The placement joined with the model: every placed cell with its workload, namespace and clouds, and the edges
/// `dependsOn` implies between cells, in both directions (docs/planner.md, precise semantics 2).
struct Topology {
    struct ServiceCell {
        var cell: Cell
        var service: Service
        var namespace: String
        /// Clouds with at least one replica, sorted by name.
        var replicas: [(cloud: String, count: Int)]

        func count(on cloud: String) -> Int {
            replicas.first { $0.cloud == cloud }?.count ?? 0
        }
    }

    struct DatabaseCell {
        var cell: Cell
        var database: Database
        var namespace: String
        var primary: String
        var backup: String?
    }

    let application: String
    /// The application's audiences, in the order declared.
    let audiences: [String]
    let clouds: [String: Cloud]
    /// Sorted by cell name.
    let services: [ServiceCell]
    /// Sorted by cell name.
    let databases: [DatabaseCell]
    /// Sorted by CDN name.
    let cdns: [(cdn: CDN, cloud: String)]
    /// By service index: the service cells and database cells it depends on, and the service cells that depend on it.
    let serviceDependencies: [[Int]]
    let databaseDependencies: [[Int]]
    let serviceDependents: [[Int]]
    /// By database index: the service cells that use it.
    let databaseDependents: [[Int]]

    init(model: Model, placement: Placement) {
        application = model.application.name
        audiences = model.application.audiences.map(\.name)
        clouds = Dictionary(model.clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let servicesByName = Dictionary(model.services.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let databasesByName = Dictionary(model.databases.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var services: [ServiceCell] = []
        var databases: [DatabaseCell] = []
        for cell in model.cells {
            let namespace = Self.namespace(application: model.application.name, audience: cell.audience)
            switch cell.kind {
            case .service:
                guard let service = servicesByName[cell.workload], let replicas = placement.services[cell.name] else { continue }
                let placed = replicas.filter { $0.count > 0 }.sorted { $0.cloud < $1.cloud }
                if !placed.isEmpty {
                    services.append(ServiceCell(cell: cell, service: service, namespace: namespace, replicas: placed))
                }
            case .database:
                guard let database = databasesByName[cell.workload], let site = placement.databases[cell.name] else { continue }
                databases.append(DatabaseCell(cell: cell, database: database, namespace: namespace, primary: site.primary, backup: site.backup))
            }
        }
        self.services = services
        self.databases = databases
        cdns = model.cdns.compactMap { cdn in placement.cdns[cdn.name].map { (cdn: cdn, cloud: $0) } }

        let serviceIndex = Dictionary(services.enumerated().map { ($1.cell.name, $0) }, uniquingKeysWith: { first, _ in first })
        let databaseIndex = Dictionary(databases.enumerated().map { ($1.cell.name, $0) }, uniquingKeysWith: { first, _ in first })
        var serviceDependencies = Array(repeating: [Int](), count: services.count)
        var databaseDependencies = Array(repeating: [Int](), count: services.count)
        var serviceDependents = Array(repeating: [Int](), count: services.count)
        var databaseDependents = Array(repeating: [Int](), count: databases.count)
        for (index, source) in services.enumerated() {
            for dependency in source.service.dependsOn {
                let scope = servicesByName[dependency.name]?.scope ?? databasesByName[dependency.name]?.scope ?? .global
                for target in scope.cells(of: dependency.name, from: source.cell.audience, audiences: audiences) {
                    if let target = serviceIndex[target] {
                        serviceDependencies[index].append(target)
                        serviceDependents[target].append(index)
                    } else if let target = databaseIndex[target] {
                        databaseDependencies[index].append(target)
                        databaseDependents[target].append(index)
                    }
                }
            }
        }
        self.serviceDependencies = serviceDependencies
        self.databaseDependencies = databaseDependencies
        self.serviceDependents = serviceDependents
        self.databaseDependents = databaseDependents
    }

    /// `retail-bank-ru` for an audience's cells, `retail-bank` for global ones: a residency cell is isolated by namespace.
    static func namespace(application: String, audience: String?) -> String {
        KubernetesName.fit(audience.map { "\(application)-\($0)" } ?? application)
    }
}
