import MCloudCore

/// Finds cells no placement can satisfy and says why in the words of a Kubernetes scheduler:
/// `payments-api@ru: 0/7 clouds fit: 4 residency (152-FZ), 2 latency, 1 capacity`.
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
            var infeasible = failure(cell.cell.name, rejected: rejected)
            infeasible.hints = lostHint(rejected) + (problem.localityHints[cell.cell.name] ?? []) + serviceHints(cell, problem)
            failures.append(infeasible)
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
            var infeasible = failure(cell.cell.name, rejected: rejected)
            infeasible.hints = lostHint(rejected) + (problem.localityHints[cell.cell.name] ?? []) + databaseHints(cell, rejected: rejected, problem)
            failures.append(infeasible)
        }
        for cell in problem.cdns where cell.allowed.isEmpty {
            let rejected = problem.clouds.map { (cloud: $0.cloud.name, reasons: filters.cdnReasons(cell.cdn, $0)) }
            failures.append(failure(cell.cdn.name, rejected: rejected))
        }
        return failures.sorted { $0.cell < $1.cell }
    }

    /// Lost clouds that fail nothing else: the cell had a home, and only the loss took it.
    static func lostHint(_ rejected: [(cloud: String, reasons: [Reason])]) -> [String] {
        let homes = rejected.filter { $0.reasons.allSatisfy { $0.filter == .lost } && !$0.reasons.isEmpty }.map(\.cloud)
        guard !homes.isEmpty else { return [] }
        let clouds = homes.count == 1 ? "cloud \(homes[0]) passes" : "clouds \(homes.joined(separator: ", ")) pass"
        return ["only the lost \(clouds) the other filters: add a cloud where the cell may run under the same rules, or relax the rule that binds it"]
    }

    /// What would make an infeasible service cell fit: the rule to relax and by how much.
    static func serviceHints(_ cell: PlanningProblem.ServiceCell, _ problem: PlanningProblem) -> [String] {
        let filters = problem.filters
        let rules = problem.model.application.residency.filter { cell.service.data.contains($0.data) && cell.audiences.contains($0.audience) }
        var hints: [String] = []
        if let conflict = residencyConflict(rules, workload: cell.service.name, isGlobal: cell.cell.audience == nil) {
            return [conflict]
        }
        let passing = problem.clouds.filter { cloud in
            !filters.serviceReasons(cell.service, audiences: cell.audiences, cloud).contains { $0.filter != .latency }
        }
        if cell.allowed.isEmpty, !passing.isEmpty {
            for audience in cell.audiences {
                let nearest = passing.compactMap { cloud in cloud.cloud.latencyMs[audience].map { (cloud.cloud.name, $0) } }
                    .min { ($0.1, $0.0) < ($1.1, $1.0) }
                if let nearest {
                    hints.append("raise audience \(audience)'s latencyMs to \(NumberText.format(nearest.1)): the nearest cloud that meets every other rule is \(nearest.0) at \(NumberText.format(nearest.1)) ms")
                }
            }
        }
        if !cell.allowed.isEmpty, spreadProblem(cell) != nil {
            let usable = cell.allowed.count
            let share = (cell.replicas + usable - 1) / usable
            let clouds = usable == 1 ? "1 cloud" : "\(usable) clouds"
            if cell.minClouds > usable { hints.append("lower minClouds to \(usable): only \(clouds) \(usable == 1 ? "meets" : "meet") every other rule") }
            if share > cell.maxPerCloud {
                let needed = Double(share) / Double(cell.replicas)
                hints.append("raise maxShare to \(Money.decimals((needed * 100).rounded(.up) / 100, places: 2)) so \(clouds) can hold \(cell.replicas) replicas, or add clouds that meet every rule")
            }
        }
        return hints
    }

    static func databaseHints(_ cell: PlanningProblem.DatabaseCell, rejected: [(cloud: String, reasons: [Reason])], _ problem: PlanningProblem) -> [String] {
        let rules = problem.model.application.residency.filter { cell.database.data.contains($0.data) && cell.audiences.contains($0.audience) }
        if let conflict = residencyConflict(rules, workload: cell.database.name, isGlobal: cell.cell.audience == nil) {
            return [conflict]
        }
        if rejected.contains(where: { $0.reasons.first?.filter == .dr }) {
            if cell.database.backup?.disasterRecovery?.differentVendor == true {
                return ["no cloud of another vendor can take the backup leg under the same rules: set differentVendor: false, or add object storage from another vendor where the data may live"]
            }
            return ["no second cloud can take the backup leg under the same rules: add object storage in another cloud where the data may live"]
        }
        return []
    }

    /// A global cell bound by rules whose allowed jurisdictions do not overlap can never be placed.
    static func residencyConflict(_ rules: [Application.ResidencyRule], workload: String, isGlobal: Bool) -> String? {
        guard isGlobal, rules.count > 1 else { return nil }
        var common = Set(rules[0].allowed)
        for rule in rules.dropFirst() { common.formIntersection(rule.allowed) }
        guard common.isEmpty else { return nil }
        let data = Set(rules.map(\.data)).sorted().joined(separator: ", ")
        let audiences = rules.map(\.audience).joined(separator: " and ")
        let laws = rules.map { $0.law ?? "[\($0.allowed.joined(separator: ", "))]" }.joined(separator: " and ")
        return "a global cell handling \(data) data of \(audiences) can never satisfy both \(laws): make \(workload) perAudience"
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
            let name: String, needs: ResourceVector, unit: String, hint: String
            let reasons: (PlanningProblem.CloudInfo) -> [Reason]
            switch item {
            case .service(let index):
                let cell = problem.services[index]
                (name, needs, unit, hint) = (cell.cell.name, cell.perReplica, "per replica", "lower its replicas or resources")
                reasons = { filters.serviceReasons(cell.service, audiences: cell.audiences, $0) }
            case .database(let index):
                let cell = problem.databases[index]
                (name, needs, unit, hint) = (cell.cell.name, cell.demand, "with its standbys", "lower its size or standbys")
                reasons = { filters.primaryReasons(cell.database, audiences: cell.audiences, $0) }
            }
            let rejected = problem.clouds.indices.map { cloud in
                var found = reasons(problem.clouds[cloud])
                if found.isEmpty { found.append(capacityReason(needs: needs, unit: unit, free: free(cloud, optimizer))) }
                return (cloud: problem.clouds[cloud].cloud.name, reasons: found)
            }
            var infeasible = failure(name, rejected: rejected)
            infeasible.hints = lostHint(rejected) + ["add capacity where \(name) may run, or \(hint)"]
            return infeasible
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
