import MCloudCore
import MCloudDatabaseEngines

/// The changes that might let a failed cell be placed, one or more for every filter that rejected a cloud: the
/// smallest relaxation of the rule that binds, or a cloud like an existing one with what is missing, named after what
/// the catalog has (its tags, latencies and PoPs). Candidates only: `HintCheck` prints those that work.
struct HintFinder {
    let problem: PlanningProblem
    let failed: PlacementFailure.InfeasibleCell

    private var model: Model { problem.model }

    func candidates() -> [Hint] {
        var hints = lost() + locality()
        if let cell = problem.services.first(where: { $0.cell.name == failed.cell }) {
            if let conflict = residencyConflict(cell.service.name, data: cell.service.data, audiences: cell.audiences, isGlobal: cell.cell.audience == nil) {
                return hints + [conflict]
            }
            hints += residency(data: cell.service.data, audiences: cell.audiences)
            hints += latency(cell)
            hints += spread(cell)
            hints += kubernetes(cell)
            hints += capacity(name: cell.cell.name, needs: cell.replicas * cell.perReplica, allowed: cell.allowed, or: "lower its replicas or resources")
        } else if let cell = problem.databases.first(where: { $0.cell.name == failed.cell }) {
            if let conflict = residencyConflict(cell.database.name, data: cell.database.data, audiences: cell.audiences, isGlobal: cell.cell.audience == nil) {
                return hints + [conflict]
            }
            hints += residency(data: cell.database.data, audiences: cell.audiences)
            hints += hosting(cell.database)
            hints += engine(cell.database)
            hints += disasterRecovery(cell)
            hints += capacity(name: cell.cell.name, needs: cell.demand, allowed: cell.allowedPrimaries, or: "lower its size or standbys")
        } else if let cell = problem.cdns.first(where: { $0.cdn.name == failed.cell }) {
            hints += pops(cell.cdn)
        }
        return hints
    }

    /// A `maxLatencyMs` that left the cell no cloud, raised to what the nearest clouds its two ends may use meet.
    private func locality() -> [Hint] {
        (problem.localityHints[failed.cell] ?? []).map { hint in
            Hint.service(hint.service, hint.text) { service in
                for index in service.dependsOn.indices where service.dependsOn[index].name == hint.dependency {
                    service.dependsOn[index].maxLatencyMs = hint.neededMs
                }
            }
        }
    }

    // MARK: What the rejections say

    /// Each cloud's reasons, by cloud name; a cloud that passed every filter is absent.
    private var reasons: [String: [Reason]] {
        Dictionary(failed.rejected.map { ($0.cloud, $0.reasons) }, uniquingKeysWith: +)
    }

    /// The clouds every one of whose reasons is of one of `filters`: they pass every other rule. Clouds that passed
    /// every filter are included.
    private func passing(except filters: Set<Reason.Filter>) -> [Cloud] {
        let reasons = reasons
        return model.clouds.filter { (reasons[$0.name] ?? []).allSatisfy { filters.contains($0.filter) } }
    }

    private func failedBy(_ filter: Reason.Filter) -> Bool {
        failed.rejected.contains { $0.reasons.contains { $0.filter == filter } }
    }

    private static func names(_ clouds: [Cloud]) -> String {
        clouds.map(\.name).joined(separator: ", ")
    }

    // MARK: Lost

    /// The lost clouds that fail nothing else: with them the cell had a home.
    private func lost() -> [Hint] {
        let homes = failed.rejected.filter { !$0.reasons.isEmpty && $0.reasons.allSatisfy { $0.filter == .lost } }.map(\.cloud)
        guard !homes.isEmpty else { return [] }
        let clouds = homes.count == 1 ? "cloud \(homes[0])" : "clouds \(homes.joined(separator: ", "))"
        // Clouds that are not lost and fail only the rules a cloud cannot fail alone (spread, the DR leg, capacity).
        let others = passing(except: [.spread, .dr, .capacity]).map(\.name).filter { !homes.contains($0) && !problem.filters.lost.contains($0) }
        let text = others.isEmpty
            ? "only the lost \(clouds) \(homes.count == 1 ? "passes" : "pass") the other filters: add a cloud where the cell may run under the same rules, or relax the rule that binds it"
            : "it fits with the lost \(clouds); without, \(others.joined(separator: ", ")) \(others.count == 1 ? "passes" : "pass") the filters but cannot hold it alone: add a cloud where the cell may run under the same rules, or relax the rule that binds it"
        return [Hint(text) { _, lost in lost.subtract(homes) }]
    }

    // MARK: Residency

    private func rules(data: [String], audiences: [String]) -> [Application.ResidencyRule] {
        model.application.residency.filter { data.contains($0.data) && audiences.contains($0.audience) }
    }

    /// A global cell bound by rules whose allowed jurisdictions do not overlap can never be placed: it must be split.
    private func residencyConflict(_ workload: String, data: [String], audiences: [String], isGlobal: Bool) -> Hint? {
        let rules = rules(data: data, audiences: audiences)
        guard isGlobal, rules.count > 1 else { return nil }
        var common = Set(rules[0].allowed)
        for rule in rules.dropFirst() { common.formIntersection(rule.allowed) }
        guard common.isEmpty else { return nil }
        let data = Set(rules.map(\.data)).sorted().joined(separator: ", ")
        let audiences = rules.map(\.audience).joined(separator: " and ")
        let laws = rules.map { $0.law ?? "[\($0.allowed.joined(separator: ", "))]" }.joined(separator: " and ")
        return perAudience(workload, "a global cell handling \(data) data of \(audiences) can never satisfy both \(laws): make \(workload) perAudience")
    }

    private func perAudience(_ workload: String, _ text: String) -> Hint {
        .model(text) { model in
            for index in model.services.indices where model.services[index].name == workload { model.services[index].scope = .perAudience }
            for index in model.databases.indices where model.databases[index].name == workload { model.databases[index].scope = .perAudience }
        }
    }

    /// No cloud may hold the data at all, and none that meets every other rule carries a tag the law allows: name the
    /// tags that exist, and propose a cloud like the first of them in the allowed jurisdiction. Where some cloud may
    /// hold the data, another rule binds, and its own hint says which.
    private func residency(data: [String], audiences: [String]) -> [Hint] {
        let reasons = reasons
        let present = model.clouds.filter { !problem.filters.lost.contains($0.name) }
        guard !present.isEmpty, present.allSatisfy({ reasons[$0.name]?.contains { $0.filter == .residency } == true }) else { return [] }
        let rules = rules(data: data, audiences: audiences)
        let others = passing(except: [.residency])
        guard let template = others.first, !rules.isEmpty else { return [] }
        let broken = rules.filter { rule in !others.contains { $0.jurisdiction.contains(where: rule.allowed.contains) } }
        guard !broken.isEmpty else { return [] }
        let tags = Array(Set(broken.compactMap(\.allowed.first))).sorted()
        var byTag: [String: [String]] = [:]
        for cloud in others { for tag in cloud.jurisdiction { byTag[tag, default: []].append(cloud.name) } }
        let existing = byTag.keys.sorted().map { "\($0) (\(byTag[$0, default: []].joined(separator: ", ")))" }.joined(separator: ", ")
        let laws = broken.map { rule in "\(rule.law ?? "\(rule.data) data of \(rule.audience)") allows [\(rule.allowed.joined(separator: ", "))]" }
        let text = "no cloud that meets the other rules is where \(laws.joined(separator: "; ")): they are tagged \(existing); add a cloud in \(tags.joined(separator: " and ")) like \(template.name)"
        return [.newCloud(like: template, text) { $0.jurisdiction = tags }]
    }

    // MARK: Latency

    private func latency(_ cell: PlanningProblem.ServiceCell) -> [Hint] {
        guard failedBy(.latency), cell.service.isPublic else { return [] }
        var hints: [Hint] = []
        let name = cell.service.name
        if cell.cell.audience == nil, cell.audiences.count > 1 {
            hints.append(perAudience(name, "make \(name) perAudience: a global public cell needs one cloud within every audience's latencyMs, a cell per audience only its own"))
        }
        let others = passing(except: [.latency])
        for audience in model.application.audiences where cell.audiences.contains(audience.name) {
            guard let limit = audience.latencyMs else { continue }
            let figures = others.compactMap { cloud in cloud.latencyMs[audience.name].map { (cloud.name, $0) } }
            if let nearest = figures.min(by: { ($0.1, $0.0) < ($1.1, $1.0) }) {
                guard nearest.1 > limit else { continue }
                let value = nearest.1
                hints.append(.model("raise audience \(audience.name)'s latencyMs from \(NumberText.format(limit)) to \(NumberText.format(value)): the nearest cloud that meets every other rule is \(nearest.0) at \(NumberText.format(value)) ms") { model in
                    for index in model.application.audiences.indices where model.application.audiences[index].name == audience.name {
                        model.application.audiences[index].latencyMs = value
                    }
                })
            } else if !others.isEmpty {
                let listed = model.clouds.filter { $0.latencyMs[audience.name] != nil }.map(\.name)
                let known = listed.isEmpty ? "no cloud of the catalog lists one" : "only \(listed.joined(separator: ", ")) \(listed.count == 1 ? "lists" : "list") one"
                hints.append(.model("no cloud that meets every other rule (\(Self.names(others))) lists latencyMs.\(audience.name), and \(known): add the measured figure to the catalog, or drop audience \(audience.name)'s latencyMs") { model in
                    for index in model.application.audiences.indices where model.application.audiences[index].name == audience.name {
                        model.application.audiences[index].latencyMs = nil
                    }
                })
            }
        }
        return hints
    }

    // MARK: Spread

    private func spread(_ cell: PlanningProblem.ServiceCell) -> [Hint] {
        guard failedBy(.spread), !cell.allowed.isEmpty else { return [] }
        var hints: [Hint] = []
        let name = cell.service.name
        let usable = cell.allowed.count
        let share = (cell.replicas + usable - 1) / usable
        let clouds = usable == 1 ? "1 cloud" : "\(usable) clouds"
        if cell.minClouds > min(usable, cell.replicas) {
            let lowered = min(usable, cell.replicas)
            let why = usable <= cell.replicas ? "only \(clouds) \(usable == 1 ? "meets" : "meet") every other rule" : "\(cell.replicas) replicas fill at most \(cell.replicas) clouds"
            hints.append(.service(name, "lower minClouds to \(lowered): \(why)") { service in
                service.availability = Availability(minClouds: lowered, maxShare: service.availability?.maxShare)
            })
        }
        if share > cell.maxPerCloud {
            let hundredths = (share * 100 + cell.replicas - 1) / cell.replicas
            let ratio = Ratio(numerator: hundredths, denominator: 100)
            let raise = "raise maxShare to \(Money.decimals(ratio.value, places: 2)) so \(clouds) can hold \(cell.replicas) replicas"
            hints.append(.service(name, "\(raise), or add clouds that meet every rule") { service in
                service.availability = Availability(minClouds: service.availability?.minClouds, maxShare: ratio)
            })
            // Where neither alone is enough, both together may be: the check keeps whichever works.
            if let lower = hints.first, hints.count == 2 {
                hints.append(Hint("\(lower.text.prefix { $0 != ":" }) and \(raise), or add clouds that meet every rule") { model, lost in
                    lower.edit(&model, &lost)
                    for index in model.services.indices where model.services[index].name == name {
                        model.services[index].availability?.maxShare = ratio
                    }
                })
            }
        }
        return hints
    }

    // MARK: Capability

    /// No cloud that meets every other rule runs Kubernetes: a cloud like one of them that does.
    private func kubernetes(_ cell: PlanningProblem.ServiceCell) -> [Hint] {
        guard failedBy(.capability), let template = passing(except: [.capability]).first else { return [] }
        let offered = model.clouds.filter(\.offers.kubernetes)
        let text = "no cloud that meets every other rule (\(Self.names(passing(except: [.capability])))) offers Kubernetes\(offered.isEmpty ? "" : "; \(Self.names(offered)) do, under other rules"): add a cloud with it like \(template.name)"
        return [.newCloud(like: template, text) { cloud in
            cloud.offers.kubernetes = true
        }]
    }

    /// A hosting that rules out how the clouds that meet every other rule could run it.
    private func hosting(_ database: Database) -> [Hint] {
        guard failedBy(.capability), database.hosting != .any else { return [] }
        let others = passing(except: [.capability, .dr])
        let ruled = Self.names(others.isEmpty ? model.clouds : others)
        return [.database(database.name, "set hosting: any (hosting: \(database.hosting.rawValue) rules out \(ruled))") { $0.hosting = .any }]
    }

    /// No cloud that meets every other rule can run the engine's version: a version its VM image has a recipe for, or a
    /// cloud like it that sells the engine managed.
    private func engine(_ database: Database) -> [Hint] {
        guard failedBy(.capability), database.hosting == .any else { return [] }
        let others = passing(except: [.capability, .dr])
        guard let template = others.first, !others.contains(where: { problem.filters.deliverability.passes(database, $0) }) else { return [] }
        var hints: [Hint] = []
        let images = others.filter(\.offers.vm).compactMap { cloud in ImageFamily(rawValue: cloud.vmImage.family).map { (cloud: cloud, family: $0) } }
        if let image = images.first, let series = EngineCatalog.series(engine: database.engine, family: image.family).last {
            hints.append(.database(database.name, "set version: \"\(series)\": \(image.cloud.name)'s VM image \(image.family.rawValue) has a \(database.engine) recipe for it, none for \(database.version)") {
                $0.version = series
            })
        }
        hints.append(.newCloud(like: template, "add a cloud like \(template.name) that sells \(database.engine) managed (offers.dbaas): no cloud that meets every other rule (\(Self.names(others))) can run \(database.engine) \(database.version)") { cloud in
            if !cloud.offers.dbaas.contains(database.engine) { cloud.offers.dbaas.append(database.engine) }
            cloud.offers.dbaasVersions[database.engine]?.append(database.version)
        })
        return hints
    }

    /// The CDN's audiences narrowed to those one cloud's PoPs cover, naming the PoPs that exist.
    private func pops(_ cdn: CDN) -> [Hint] {
        guard failedBy(.capability) else { return [] }
        let audiences = model.application.audiences.filter { (cdn.audiences ?? model.application.audiences.map(\.name)).contains($0.name) }
        let withPops = model.clouds.filter { $0.offers.cdnPops != nil && !problem.filters.lost.contains($0.name) }
        var byTag: [String: [String]] = [:]
        for cloud in withPops { for tag in cloud.offers.cdnPops ?? [] { byTag[tag, default: []].append(cloud.name) } }
        let existing = byTag.isEmpty ? "no cloud has a CDN" : "PoPs: " + byTag.keys.sorted().map { "\($0) on \(byTag[$0, default: []].joined(separator: ", "))" }.joined(separator: "; ")
        let best = withPops.map { cloud in (cloud, audiences.filter { (cloud.offers.cdnPops ?? []).contains($0.jurisdiction) }.map(\.name)) }
            .max { ($0.1.count, $1.0.name) < ($1.1.count, $0.0.name) }
        guard let (cloud, covered) = best, !covered.isEmpty, covered.count < audiences.count else { return [] }
        let missing = audiences.filter { !covered.contains($0.name) }.map { "\($0.jurisdiction) (audience \($0.name))" }
        let text = "no one CDN has PoPs in every audience's jurisdiction: none in \(missing.joined(separator: ", ")) on \(cloud.name) (\(existing)): set the CDN's audiences to [\(covered.joined(separator: ", "))]"
        return [.model(text) { model in
            for index in model.cdns.indices where model.cdns[index].name == cdn.name { model.cdns[index].audiences = covered }
        }]
    }

    // MARK: The DR leg

    private func disasterRecovery(_ cell: PlanningProblem.DatabaseCell) -> [Hint] {
        guard let recovery = cell.database.backup?.disasterRecovery, failedBy(.dr) else { return [] }
        let name = cell.database.name
        var hints: [Hint] = []
        if recovery.differentVendor {
            hints.append(.database(name, "set differentVendor: false: no cloud of another vendor can take the backup leg under the same rules") { database in
                database.backup?.disasterRecovery?.differentVendor = false
            })
        }
        // A second cloud like the one that could hold the primary, of another vendor, with object storage.
        if let template = passing(except: [.dr]).first {
            let price = model.clouds.compactMap(\.pricing.objectStorageGiBMonth).max() ?? 0
            let tags = template.jurisdiction.joined(separator: ", ")
            let vendor = recovery.differentVendor ? " of another vendor than \(template.vendor)" : ""
            hints.append(.newCloud(like: template, "add a cloud with object storage\(vendor) in [\(tags)] beside \(template.name): the backup leg needs a second cloud where the data may live") { cloud in
                cloud.vendor = recovery.differentVendor ? "\(template.vendor)-other" : cloud.vendor
                cloud.offers.objectStorage = true
                if cloud.pricing.objectStorageGiBMonth == nil { cloud.pricing.objectStorageGiBMonth = price }
            })
        }
        return hints
    }

    // MARK: Capacity

    /// Room for the whole cell in the cheapest-named cloud that passes every filter.
    private func capacity(name: String, needs: ResourceVector, allowed: [Int], or smaller: String) -> [Hint] {
        guard failedBy(.capacity), let index = allowed.first else { return [] }
        let cloud = problem.clouds[index].cloud
        return [.cloud(cloud.name, "add \(Feasibility.describe(needs)) to \(cloud.name)'s capacity, which passes every rule for \(name); or \(smaller)") { cloud in
            cloud.capacity.vcpu += needs.cpu
            cloud.capacity.memoryGiB += needs.memory
            cloud.capacity.storageGiB += needs.storage
        }]
    }
}
