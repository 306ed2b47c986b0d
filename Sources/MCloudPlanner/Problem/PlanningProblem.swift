import MCloudCore

/// The model turned into numbers: clouds and cells by index, every price in the application's currency,
/// every static filter already applied. Cloud indices follow cloud names, so "lowest index" breaks ties by name.
struct PlanningProblem {
    /// A class, not a struct: the search and the explanations pass clouds around constantly, and copying a
    /// Cloud's arrays and strings each time cost more than the work itself.
    final class CloudInfo: Sendable {
        let cloud: Cloud
        let capacity: ResourceVector
        /// Monthly prices in the application's currency; nil where the cloud does not price (so does not sell) it.
        let vcpuMonth: Double?
        let memoryGiBMonth: Double?
        let storageGiBMonth: Double?
        let objectStorageGiBMonth: Double?
        let egressGiB: Double
        let cdnGiB: Double?

        init(cloud: Cloud, rate: Double) {
            let pricing = cloud.pricing
            self.cloud = cloud
            capacity = ResourceVector(cpu: cloud.capacity.vcpu, memory: cloud.capacity.memoryGiB, storage: cloud.capacity.storageGiB)
            vcpuMonth = pricing.vcpuHour.map { $0 * PlanningProblem.hoursPerMonth * rate }
            memoryGiBMonth = pricing.memoryGiBHour.map { $0 * PlanningProblem.hoursPerMonth * rate }
            storageGiBMonth = pricing.storageGiBMonth.map { $0 * rate }
            objectStorageGiBMonth = pricing.objectStorageGiBMonth.map { $0 * rate }
            egressGiB = (pricing.egressGiB ?? 0) * rate
            cdnGiB = pricing.cdnGiB.map { $0 * rate }
        }
    }

    struct Edge {
        /// The other end: a database cell for a service's edge, a service cell for a database's edge.
        var cell: Int
        var trafficGiBMonth: Double
    }

    struct ServiceCell {
        var cell: Cell
        var service: Service
        var audiences: [String]
        var replicas: Int
        var perReplica: ResourceVector
        var maxPerCloud: Int
        var minClouds: Int
        var availability: Availability
        /// Clouds that pass capability, residency and latency, in index order.
        var allowed: [Int]
        /// Monthly cost of one replica in each cloud; infinity where not allowed.
        var replicaCost: [Double]
        var edges: [Edge] = []
    }

    struct DatabaseCell {
        var cell: Cell
        var database: Database
        var audiences: [String]
        /// Everything the primary and its standbys take: (1 + standbys) x size.
        var demand: ResourceVector
        var allowedPrimaries: [Int]
        /// Monthly cost of primary and standbys in each cloud, plus the DR leg's egress from it; infinity where not allowed.
        var primaryCost: [Double]
        var needsBackup: Bool
        /// For each primary, the cheapest allowed backup cloud (nil when none is allowed, or none is needed).
        var bestBackup: [Int?]
        var backupCost: [Double]
        var edges: [Edge] = []
        /// The service cells on its edges, each once, in index order: the cells whose egress moves with the primary.
        var connectedServices: [Int] = []

        func totalCost(primary: Int) -> Double {
            primaryCost[primary] + (bestBackup[primary].map { backupCost[$0] } ?? 0)
        }
    }

    struct CDNCell {
        var cdn: CDN
        var allowed: [Int]
        var cost: [Double]
    }

    var model: Model
    var clouds: [CloudInfo]
    var services: [ServiceCell]
    var databases: [DatabaseCell]
    var cdns: [CDNCell]
    var filters: Filters
    /// For cells `maxLatencyMs` left with no cloud, by name: the edge and the nearest pair of clouds its ends could use.
    var localityHints: [String: [LocalityHint]] = [:]

    /// A `maxLatencyMs` that strands a cell, and the least limit the nearest clouds its two ends may use would meet.
    struct LocalityHint: Hashable {
        /// The dependent service and the `dependsOn` entry carrying the rule.
        var service: String
        var dependency: String
        var text: String
        var neededMs: Double
    }

    static let hoursPerMonth = 730.0

    /// Every CDN at its cheapest allowed cloud: CDNs take no capacity and share no edge, so that is their part of
    /// any placement's cost and of every bound.
    var cheapestCDNCost: Double {
        cdns.reduce(0.0) { sum, cdn in sum + (cdn.allowed.map { cdn.cost[$0] }.min() ?? 0) }
    }

    /// The same problem with each database's primary fixed at `primary` (a cloud per database): the services' part
    /// alone, which the bound solves to lay them afresh around final primaries.
    func fixingPrimaries(_ primary: [Int]) -> PlanningProblem {
        var fixed = self
        for database in fixed.databases.indices where primary.indices.contains(database) && primary[database] >= 0 {
            fixed.databases[database].allowedPrimaries = [primary[database]]
        }
        return fixed
    }

    /// `lost`: clouds taken as gone; they stay in the problem, so every summary counts them, and fail every filter.
    /// `leftOut`: cells and CDNs not placed at all.
    init(model: Model, lost: Set<String> = [], leftOut: Set<String> = []) {
        self.model = model
        let application = model.application
        clouds = model.clouds.map { CloudInfo(cloud: $0, rate: application.rate(for: $0.pricing.currency) ?? .nan) }
        let filters = Filters(model: model, lost: lost)
        self.filters = filters
        let cloudsInfo = clouds
        let audienceNames = application.audiences.map(\.name)
        func audiences(_ cell: Cell) -> [String] { cell.audience.map { [$0] } ?? audienceNames }

        let servicesByName = Dictionary(model.services.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let databasesByName = Dictionary(model.databases.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var serviceCells: [ServiceCell] = []
        var databaseCells: [DatabaseCell] = []
        for cell in model.cells where !leftOut.contains(cell.name) {
            switch cell.kind {
            case .service:
                guard let service = servicesByName[cell.workload] else { continue }
                serviceCells.append(Self.serviceCell(cell, service, audiences(cell), cloudsInfo, filters, application))
            case .database:
                guard let database = databasesByName[cell.workload] else { continue }
                databaseCells.append(Self.databaseCell(cell, database, audiences(cell), cloudsInfo, filters))
            }
        }
        services = serviceCells
        databases = databaseCells
        cdns = model.cdns.filter { !leftOut.contains($0.name) }.map { cdn in
            let allowed = cloudsInfo.indices.filter { filters.cdnPasses(cdn, cloudsInfo[$0]) }
            let cost = cloudsInfo.indices.map { index in
                allowed.contains(index) ? cdn.trafficGiBMonth * (cloudsInfo[index].cdnGiB ?? .infinity) : .infinity
            }
            return CDNCell(cdn: cdn, allowed: allowed, cost: cost)
        }
        connectEdges(servicesByName: servicesByName, databasesByName: databasesByName)
    }

    private static func serviceCell(
        _ cell: Cell, _ service: Service, _ audiences: [String], _ clouds: [CloudInfo], _ filters: Filters, _ application: Application
    ) -> ServiceCell {
        let availability = application.availability.overridden(by: service.availability)
        let maxShare = availability.maxShare ?? .one
        let perReplica = ResourceVector(cpu: service.resources.cpu.cores, memory: service.resources.memory.gibibytes, storage: 0)
        var allowed: [Int] = []
        var cost = [Double](repeating: .infinity, count: clouds.count)
        for (index, cloud) in clouds.enumerated() where filters.servicePasses(service, audiences: audiences, cloud) {
            guard let vcpu = cloud.vcpuMonth, let memory = cloud.memoryGiBMonth else { continue }
            allowed.append(index)
            cost[index] = perReplica.cpu * vcpu + perReplica.memory * memory
        }
        return ServiceCell(
            cell: cell, service: service, audiences: audiences, replicas: service.replicas, perReplica: perReplica,
            maxPerCloud: maxShare.floorOfProduct(service.replicas), minClouds: availability.minClouds ?? 1,
            availability: availability, allowed: allowed, replicaCost: cost
        )
    }

    private static func databaseCell(
        _ cell: Cell, _ database: Database, _ audiences: [String], _ clouds: [CloudInfo], _ filters: Filters
    ) -> DatabaseCell {
        let copies = Double(1 + database.standbys)
        let size = database.size
        let demand = ResourceVector(cpu: copies * size.vcpu, memory: copies * size.memoryGiB, storage: copies * size.storageGiB)
        let recovery = database.backup?.disasterRecovery
        var backupCost = [Double](repeating: .infinity, count: clouds.count)
        var backupCandidates: [Int] = []
        if recovery != nil {
            for (index, cloud) in clouds.enumerated() where filters.backupPasses(database, audiences: audiences, cloud) {
                guard let price = cloud.objectStorageGiBMonth else { continue }
                backupCandidates.append(index)
                backupCost[index] = size.storageGiB * price
            }
        }
        var primaryCost = [Double](repeating: .infinity, count: clouds.count)
        var bestBackup = [Int?](repeating: nil, count: clouds.count)
        var allowed: [Int] = []
        for (index, cloud) in clouds.enumerated() where filters.primaryPasses(database, audiences: audiences, cloud) {
            guard let vcpu = cloud.vcpuMonth, let memory = cloud.memoryGiBMonth, let storage = cloud.storageGiBMonth else { continue }
            var cost = copies * (size.vcpu * vcpu + size.memoryGiB * memory + size.storageGiB * storage)
            if let recovery {
                let backups = backupCandidates.filter { Filters.drReason(recovery, primary: cloud.cloud, backup: clouds[$0].cloud) == nil }
                // The cheapest leg; on a tie the lower index, which is the earlier name.
                guard let best = backups.min(by: { (backupCost[$0], $0) < (backupCost[$1], $1) }) else { continue }
                bestBackup[index] = best
                cost += recovery.changeGiBDay * 30 * cloud.egressGiB
            }
            allowed.append(index)
            primaryCost[index] = cost
        }
        return DatabaseCell(
            cell: cell, database: database, audiences: audiences, demand: demand, allowedPrimaries: allowed,
            primaryCost: primaryCost, needsBackup: recovery != nil, bestBackup: bestBackup, backupCost: backupCost
        )
    }

    /// Joins service cells to the database cells they depend on (docs/planner.md, precise semantics 2).
    private mutating func connectEdges(servicesByName: [String: Service], databasesByName: [String: Database]) {
        var databaseIndex: [String: Int] = [:]
        for (index, cell) in databases.enumerated() { databaseIndex[cell.cell.name] = index }
        let audienceNames = model.application.audiences.map(\.name)
        for serviceIndex in services.indices {
            let cell = services[serviceIndex].cell
            for dependency in services[serviceIndex].service.dependsOn {
                guard let database = databasesByName[dependency.name] else { continue }
                for target in database.scope.cells(of: database.name, from: cell.audience, audiences: audienceNames) {
                    guard let databaseCell = databaseIndex[target] else { continue }
                    services[serviceIndex].edges.append(Edge(cell: databaseCell, trafficGiBMonth: dependency.trafficGiBMonth))
                    databases[databaseCell].edges.append(Edge(cell: serviceIndex, trafficGiBMonth: dependency.trafficGiBMonth))
                    // Services are visited in index order, so a repeat can only be the last one added.
                    if databases[databaseCell].connectedServices.last != serviceIndex {
                        databases[databaseCell].connectedServices.append(serviceIndex)
                    }
                }
            }
        }
    }
}
