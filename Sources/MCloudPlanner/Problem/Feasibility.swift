import MCloudCore

/// Finds cells no placement can satisfy and says why in the words of a Kubernetes scheduler:
/// `payments-api@ru: 0/7 clouds fit: 4 residency (152-FZ), 2 latency, 1 capacity`. The hints come after, from
/// `HintFinder`, checked by `HintCheck`.
enum Feasibility {
    static func staticFailures(_ problem: PlanningProblem) -> [PlacementFailure.InfeasibleCell] {
        var failures: [PlacementFailure.InfeasibleCell] = []
        let filters = problem.filters
        for cell in problem.services {
            let spreadProblem = spreadProblem(cell)
            guard cell.allowed.isEmpty || spreadProblem != nil else { continue }
            var rejected = problem.clouds.map { cloud in
                (cloud: cloud.cloud.name, reasons: filters.serviceReasons(cell.service, audiences: cell.audiences, cloud))
            }
            if let spreadProblem {
                for cloud in cell.allowed { rejected[cloud].reasons.append(Reason(.spread, spreadProblem)) }
            }
            failures.append(failure(cell.cell.name, rejected: rejected))
        }
        for cell in problem.databases where cell.allowedPrimaries.isEmpty {
            let rejected = problem.clouds.indices.map { index in
                let cloud = problem.clouds[index]
                var reasons = filters.primaryReasons(cell.database, audiences: cell.audiences, cloud)
                if reasons.isEmpty, cell.needsBackup {
                    reasons.append(Reason(.dr, "no other cloud can take the backup leg from here (object storage, residency\(cell.database.backup?.disasterRecovery?.differentVendor == true ? ", another vendor" : ""))"))
                }
                return (cloud: cloud.cloud.name, reasons: reasons)
            }
            failures.append(failure(cell.cell.name, rejected: rejected))
        }
        for cell in problem.cdns where cell.allowed.isEmpty {
            let rejected = problem.clouds.map { (cloud: $0.cloud.name, reasons: filters.cdnReasons(cell.cdn, $0)) }
            failures.append(failure(cell.cdn.name, rejected: rejected))
        }
        return failures.sorted { $0.cell < $1.cell }
    }

    /// Why spread cannot be met with the clouds that pass every other rule, or nil when it can.
    static func spreadProblem(_ cell: PlanningProblem.ServiceCell) -> String? {
        let usable = cell.allowed.count
        let maxShare = cell.availability.maxShare.map(\.description) ?? "1"
        if cell.maxPerCloud == 0 {
            return "maxShare \(maxShare) of \(cell.replicas) replicas allows 0 per cloud"
        }
        if cell.minClouds > cell.replicas {
            return "minClouds \(cell.minClouds) needs more clouds than the \(cell.replicas) replicas can fill"
        }
        if usable < cell.minClouds || usable * cell.maxPerCloud < cell.replicas {
            let needed = max(cell.minClouds, (cell.replicas + cell.maxPerCloud - 1) / cell.maxPerCloud)
            return "\(cell.replicas) replicas at most \(cell.maxPerCloud) per cloud (maxShare \(maxShare)) with minClouds \(cell.minClouds) need \(needed) clouds; \(usable) pass the other rules"
        }
        return nil
    }

    /// Cells the construction could not fit in the capacity left, with what each allowed cloud had free.
    static func capacityFailures(_ items: [Optimizer.Item], optimizer: Optimizer) -> [PlacementFailure.InfeasibleCell] {
        let problem = optimizer.problem
        let filters = problem.filters
        return items.map { item -> PlacementFailure.InfeasibleCell in
            let name: String, needs: ResourceVector, unit: String
            let reasons: (PlanningProblem.CloudInfo) -> [Reason]
            switch item {
            case .service(let index):
                let cell = problem.services[index]
                (name, needs, unit) = (cell.cell.name, cell.perReplica, "per replica")
                reasons = { filters.serviceReasons(cell.service, audiences: cell.audiences, $0) }
            case .database(let index):
                let cell = problem.databases[index]
                (name, needs, unit) = (cell.cell.name, cell.demand, "with its standbys")
                reasons = { filters.primaryReasons(cell.database, audiences: cell.audiences, $0) }
            }
            let rejected = problem.clouds.indices.map { cloud in
                var found = reasons(problem.clouds[cloud])
                if found.isEmpty { found.append(capacityReason(needs: needs, unit: unit, free: free(cloud, optimizer))) }
                return (cloud: problem.clouds[cloud].cloud.name, reasons: found)
            }
            return failure(name, rejected: rejected)
        }.sorted { $0.cell < $1.cell }
    }

    static func free(_ cloud: Int, _ optimizer: Optimizer) -> ResourceVector {
        optimizer.problem.clouds[cloud].capacity - optimizer.state.usage[cloud]
    }

    static func capacityReason(needs: ResourceVector, unit: String, free: ResourceVector) -> Reason {
        Reason(.capacity, "needs \(describe(needs)) \(unit), \(describe(free)) free")
    }

    static func describe(_ resources: ResourceVector) -> String {
        var parts = ["\(NumberText.format(rounded(resources.cpu))) vCPU", "\(NumberText.format(rounded(resources.memory))) GiB memory"]
        if resources.storage > 0 { parts.append("\(NumberText.format(rounded(resources.storage))) GiB storage") }
        return parts.joined(separator: ", ")
    }

    private static func rounded(_ value: Double) -> Double { (max(0, value) * 1000).rounded() / 1000 }

    /// Counts each cloud once, by its first reason, most common first.
    static func failure(_ cell: String, rejected: [(cloud: String, reasons: [Reason])]) -> PlacementFailure.InfeasibleCell {
        var counts: [Reason.Filter: Int] = [:]
        var laws: [Reason.Filter: Set<String>] = [:]
        var fitting = 0
        for entry in rejected {
            guard let first = entry.reasons.min(by: { $0.filter < $1.filter }) else {
                fitting += 1
                continue
            }
            counts[first.filter, default: 0] += 1
            for reason in entry.reasons where reason.filter == first.filter {
                if let law = reason.law { laws[first.filter, default: []].insert(law) }
            }
        }
        let parts = counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { filter, count in
            let law = laws[filter].map { " (\($0.sorted().joined(separator: ", ")))" } ?? ""
            return "\(count) \(filter.rawValue)\(law)"
        }
        let summary = "\(cell): \(fitting)/\(rejected.count) clouds fit: \(parts.joined(separator: ", "))"
        return PlacementFailure.InfeasibleCell(cell: cell, summary: summary, rejected: rejected.filter { !$0.reasons.isEmpty })
    }
}
