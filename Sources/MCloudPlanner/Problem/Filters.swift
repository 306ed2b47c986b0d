import MCloudCore

/// The static filters of docs/planner.md: capability, residency, latency and the DR leg's rules. Each returns every
/// reason a cloud fails, never just the first, so explanations show them all. A lost cloud (a what-if, or the cloud a
/// failover leaves) fails every filter, and its other reasons still show.
struct Filters {
    let application: Application
    /// The clouds taken as gone, by name.
    let lost: Set<String>
    let deliverability: Deliverability
    /// What `dependsOn[].maxLatencyMs` rules out, by cell name and cloud name (`PlanningProblem.restrictLocality`);
    /// empty until the planner restricts the problem, so restore drills, which bind no edge, never see it.
    var locality: [String: [String: [Reason]]] = [:]
    private let audiences: [String: Application.Audience]

    init(model: Model, lost: Set<String> = []) {
        application = model.application
        self.lost = lost
        deliverability = Deliverability(standbyRule: model.standbyRule)
        audiences = Dictionary(model.application.audiences.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Predicates: the same rules as the reasons below without building any text, for the hot paths.
    // FilterConsistencyTests checks that each predicate passes exactly where its reasons are empty.

    func servicePasses(_ service: Service, audiences cellAudiences: [String], _ cloud: PlanningProblem.CloudInfo) -> Bool {
        guard !lost.contains(cloud.cloud.name), cloud.cloud.offers.kubernetes, cloud.vcpuMonth != nil, cloud.memoryGiBMonth != nil,
              residencyPasses(data: service.data, audiences: cellAudiences, cloud.cloud),
              localityReasons(service.name, service.scope, cellAudiences, cloud.cloud).isEmpty else { return false }
        guard service.isPublic else { return true }
        for name in cellAudiences {
            guard let limit = audiences[name]?.latencyMs else { continue }
            guard let latency = cloud.cloud.latencyMs[name], latency <= limit else { return false }
        }
        return true
    }

    func primaryPasses(_ database: Database, audiences cellAudiences: [String], _ cloud: PlanningProblem.CloudInfo) -> Bool {
        !lost.contains(cloud.cloud.name) && deliverability.passes(database, cloud.cloud) && cloud.vcpuMonth != nil && cloud.memoryGiBMonth != nil
            && cloud.storageGiBMonth != nil && residencyPasses(data: database.data, audiences: cellAudiences, cloud.cloud)
            && localityReasons(database.name, database.scope, cellAudiences, cloud.cloud).isEmpty
    }

    func backupPasses(_ database: Database, audiences cellAudiences: [String], _ cloud: PlanningProblem.CloudInfo) -> Bool {
        !lost.contains(cloud.cloud.name) && cloud.cloud.offers.objectStorage && cloud.objectStorageGiBMonth != nil
            && residencyPasses(data: database.data, audiences: cellAudiences, cloud.cloud)
    }

    func cdnPasses(_ cdn: CDN, _ cloud: PlanningProblem.CloudInfo) -> Bool {
        guard !lost.contains(cloud.cloud.name), let pops = cloud.cloud.offers.cdnPops, cloud.cdnGiB != nil else { return false }
        return (cdn.audiences ?? application.audiences.map(\.name)).allSatisfy { name in
            audiences[name].map { pops.contains($0.jurisdiction) } ?? true
        }
    }

    func residencyPasses(data: [String], audiences cellAudiences: [String], _ cloud: Cloud) -> Bool {
        application.residency.allSatisfy { rule in
            !data.contains(rule.data) || !cellAudiences.contains(rule.audience) || rule.allowed.contains(where: cloud.jurisdiction.contains)
        }
    }

    /// The locality reasons of the cell of `workload` serving `cellAudiences` (a perAudience cell serves one).
    func localityReasons(_ workload: String, _ scope: Scope, _ cellAudiences: [String], _ cloud: Cloud) -> [Reason] {
        guard !locality.isEmpty else { return [] }
        let cell = scope == .perAudience ? cellAudiences.first.map { "\(workload)@\($0)" } ?? workload : workload
        return locality[cell]?[cloud.name] ?? []
    }

    // MARK: Reasons

    /// The reason every filter gives a lost cloud first.
    func lostReasons(_ cloud: Cloud) -> [Reason] {
        lost.contains(cloud.name) ? [Reason(.lost, "the cloud is taken as gone")] : []
    }

    func serviceReasons(_ service: Service, audiences cellAudiences: [String], _ cloud: PlanningProblem.CloudInfo) -> [Reason] {
        var reasons = lostReasons(cloud.cloud)
        if !cloud.cloud.offers.kubernetes {
            reasons.append(Reason(.capability, "no managed Kubernetes (offers.kubernetes)"))
        } else if cloud.vcpuMonth == nil || cloud.memoryGiBMonth == nil {
            reasons.append(Reason(.capability, "no vcpuHour and memoryGiBHour prices"))
        }
        reasons += residencyReasons(data: service.data, audiences: cellAudiences, cloud.cloud)
        if service.isPublic {
            for name in cellAudiences {
                guard let limit = audiences[name]?.latencyMs else { continue }
                guard let latency = cloud.cloud.latencyMs[name] else {
                    reasons.append(Reason(.latency, "no latency figure for audience \(name), limit \(NumberText.format(limit)) ms"))
                    continue
                }
                if latency > limit {
                    reasons.append(Reason(.latency, "\(NumberText.format(latency)) ms to audience \(name), limit \(NumberText.format(limit)) ms"))
                }
            }
        }
        return reasons + localityReasons(service.name, service.scope, cellAudiences, cloud.cloud)
    }

    func primaryReasons(_ database: Database, audiences cellAudiences: [String], _ cloud: PlanningProblem.CloudInfo) -> [Reason] {
        var reasons = lostReasons(cloud.cloud)
        if let undeliverable = deliverability.reason(database, cloud.cloud) {
            reasons.append(undeliverable)
        } else if cloud.vcpuMonth == nil || cloud.memoryGiBMonth == nil || cloud.storageGiBMonth == nil {
            reasons.append(Reason(.capability, "no vcpuHour, memoryGiBHour and storageGiBMonth prices"))
        }
        reasons += residencyReasons(data: database.data, audiences: cellAudiences, cloud.cloud)
        return reasons + localityReasons(database.name, database.scope, cellAudiences, cloud.cloud)
    }

    /// The filters a backup cloud passes whatever the primary: object storage and residency.
    func backupReasons(_ database: Database, audiences cellAudiences: [String], _ cloud: PlanningProblem.CloudInfo) -> [Reason] {
        var reasons = lostReasons(cloud.cloud)
        if !cloud.cloud.offers.objectStorage || cloud.objectStorageGiBMonth == nil {
            reasons.append(Reason(.capability, "no object storage for the backup leg"))
        }
        reasons += residencyReasons(data: database.data, audiences: cellAudiences, cloud.cloud)
        return reasons
    }

    /// The DR leg's own rule: another cloud, of another vendor when asked.
    static func drReason(_ recovery: Database.DisasterRecovery, primary: Cloud, backup: Cloud) -> Reason? {
        if primary.name == backup.name { return Reason(.dr, "the backup leg cannot be the primary's cloud") }
        if recovery.differentVendor, primary.vendor == backup.vendor {
            return Reason(.dr, "same vendor (\(backup.vendor)) as the primary \(primary.name); differentVendor is set")
        }
        return nil
    }

    func cdnReasons(_ cdn: CDN, _ cloud: PlanningProblem.CloudInfo) -> [Reason] {
        var reasons = lostReasons(cloud.cloud)
        guard let pops = cloud.cloud.offers.cdnPops, cloud.cdnGiB != nil else {
            return reasons + [Reason(.capability, "no CDN")]
        }
        for name in cdn.audiences ?? application.audiences.map(\.name) {
            guard let jurisdiction = audiences[name]?.jurisdiction, !pops.contains(jurisdiction) else { continue }
            reasons.append(Reason(.capability, "no CDN point of presence in \(jurisdiction) (audience \(name))"))
        }
        return reasons
    }

    /// Every residency rule that applies to the cell (its data classes, its audiences) and that the cloud breaks.
    func residencyReasons(data: [String], audiences cellAudiences: [String], _ cloud: Cloud) -> [Reason] {
        application.residency.compactMap { rule in
            guard data.contains(rule.data), cellAudiences.contains(rule.audience) else { return nil }
            guard !rule.allowed.contains(where: cloud.jurisdiction.contains) else { return nil }
            let law = rule.law.map { " (\($0))" } ?? ""
            return Reason(
                .residency,
                "\(rule.data) data of audience \(rule.audience) allows [\(rule.allowed.joined(separator: ", "))]\(law), cloud is [\(cloud.jurisdiction.joined(separator: ", "))]",
                law: rule.law
            )
        }
    }
}
