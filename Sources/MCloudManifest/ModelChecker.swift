import MCloudCore

/// The checks that need more than one document: references, duplicates, currencies, the single Application.
struct ModelChecker {
    let manifests: [Manifest]
    let sourceMap: SourceMap
    /// Every document written, including those that failed to decode (they have their own errors).
    let seen: [DocumentSeen]
    let rejectedRates: Set<String>
    /// False when a file stopped reading at a YAML error: what it would have defined after the error is unknown, so
    /// a name that seems missing is no error of its own.
    let complete: Bool
    /// False when some document had errors of its own: a value it dropped (a bad tag) must not look absent.
    let decodedCleanly: Bool
    /// Which standbys are deliverable; the model carries it to the planner.
    let standbyRule: StandbyRule
    private(set) var diagnostics: [Diagnostic] = []

    init(
        manifests: [Manifest], sourceMap: SourceMap, seen: [DocumentSeen], rejectedRates: Set<String>, complete: Bool = true, decodedCleanly: Bool = true,
        standbyRule: StandbyRule = .mustReplicate
    ) {
        self.manifests = manifests
        self.standbyRule = standbyRule
        self.sourceMap = sourceMap
        self.seen = seen
        self.rejectedRates = rejectedRates
        self.complete = complete
        self.decodedCleanly = decodedCleanly
    }

    /// Names of documents of these kinds that exist but did not decode: a reference to one is not dangling.
    private func brokenNames(_ kinds: Set<Manifest.Kind>, decoded: Set<String>) -> Set<String> {
        Set(seen.filter { kinds.contains($0.kind) }.compactMap(\.name)).subtracting(decoded)
    }

    private func place(_ document: String, _ path: String, _ fallback: SourceLocation) -> SourceLocation {
        sourceMap.location(document: document, path: path, fallback: fallback)
    }

    private mutating func error(_ location: SourceLocation, _ message: String) {
        diagnostics.append(.error(location, message))
    }

    mutating func check() -> Model? {
        var applications: [Application] = []
        var clouds: [Cloud] = []
        var services: [Service] = []
        var databases: [Database] = []
        var cdns: [CDN] = []
        var policies: [Policy] = []
        for manifest in manifests {
            switch manifest {
            case .application(let application): applications.append(application)
            case .cloud(let cloud): clouds.append(cloud)
            case .service(let service): services.append(service)
            case .database(let database): databases.append(database)
            case .cdn(let cdn): cdns.append(cdn)
            case .policy(let policy): policies.append(policy)
            }
        }
        checkUnique(clouds.map { ($0.name, $0.location, "Cloud") })
        for (cloud, message) in BackupIdentityRule(clouds: clouds).problems() {
            error(place("Cloud/\(cloud.name)", BackupIdentityRule.path, cloud.location), message)
        }
        checkUnique(services.map { ($0.name, $0.location, "Service") } + databases.map { ($0.name, $0.location, "Database") })
        checkUnique(cdns.map { ($0.name, $0.location, "CDN") })
        checkUnique(policies.map { ($0.name, $0.location, "Policy") })
        let applicationDocuments = seen.filter { $0.kind == .Application }.sorted { $0.location < $1.location }
        if let first = applicationDocuments.first {
            let firstName = first.name.map { "\"\($0)\" is defined" } ?? "the first is"
            for extra in applicationDocuments.dropFirst() {
                let name = extra.name.map { " \"\($0)\"" } ?? ""
                error(extra.location, "metadata.name: a second Application\(name); a plan has exactly one, and \(firstName) at \(first.location); point -f at one application's folder")
            }
        }
        if complete, !seen.contains(where: { $0.kind == .Cloud }) {
            diagnostics.append(Diagnostic(.error, file: nil, "no Cloud manifests found; pass --providers DIR pointing at the cloud catalog"))
        }
        if complete, applicationDocuments.isEmpty {
            diagnostics.append(Diagnostic(.error, file: nil, "no Application manifest found; exactly one is required"))
        }
        // Checks that need the Application wait until exactly one decodes: against the first of two, the second's
        // workloads would get errors (unknown audiences, undeclared classes) that only the second Application explains.
        let application = applicationDocuments.count == 1 ? applications.first { $0.location == applicationDocuments.first?.location } : nil
        checkServices(services, databases: databases, cdns: cdns, application: application)
        checkCDNs(cdns, services: services, databases: databases, application: application)
        checkPolicies(policies, clouds: clouds, application: application)
        checkCloudLatency(clouds)
        if let application {
            checkApplication(application, clouds: clouds)
            checkDataClasses(application, services: services, databases: databases)
            checkSpread(services, application: application)
            checkResidencyTags(application, clouds: clouds, workloads: services.map { ($0.name, $0.scope, $0.data) } + databases.map { ($0.name, $0.scope, $0.data) })
            checkDatabases(databases, application: application)
            checkDelivery(databases, clouds: clouds, application: application)
            checkLatencyKeys(clouds, application: application)
        }
        guard let application else { return nil }
        guard !diagnostics.hasErrors else { return nil }
        return Model(
            application: application, clouds: clouds, services: services, databases: databases, cdns: cdns, policies: policies, standbyRule: standbyRule
        )
    }

    private mutating func checkUnique(_ entries: [(name: String, location: SourceLocation, kind: String)]) {
        var first: [String: (location: SourceLocation, kind: String)] = [:]
        for entry in entries.sorted(by: { $0.location < $1.location }) {
            if let earlier = first[entry.name] {
                let what = earlier.kind == entry.kind ? "\(entry.kind) \"\(entry.name)\" is already defined at \(earlier.location)"
                    : "\"\(entry.name)\" is already the name of a \(earlier.kind) at \(earlier.location); dependsOn could not tell them apart"
                error(entry.location, "metadata.name: \(what)")
            } else {
                first[entry.name] = (entry.location, entry.kind)
            }
        }
    }

    private mutating func checkApplication(_ application: Application, clouds: [Cloud]) {
        let document = "Application/\(application.name)"
        let audiences = application.audiences.map(\.name)
        for (index, rule) in application.residency.enumerated() where !audiences.contains(rule.audience) {
            error(
                place(document, "spec.residency[\(index)].audience", application.location),
                "spec.residency[\(index)].audience: no audience named \"\(rule.audience)\"" + Suggestion.didYouMean(rule.audience, in: audiences)
            )
        }
        for cloud in clouds where application.rate(for: cloud.pricing.currency) == nil && !rejectedRates.contains(cloud.pricing.currency) {
            error(
                place("Cloud/\(cloud.name)", "spec.pricing.currency", cloud.location),
                "spec.pricing.currency: \(cloud.pricing.currency) has no exchange rate; add it to spec.exchangeRates of Application \"\(application.name)\" (\(application.location))"
            )
        }
    }

    /// Residency matches on class names, so a class no declaration knows (a typo, most often) would escape every
    /// rule: each use must name a declared class. A manifest that declares none gets one warning listing what to add.
    private mutating func checkDataClasses(_ application: Application, services: [Service], databases: [Database]) {
        let document = "Application/\(application.name)"
        let governed = application.residency.map(\.data)
        for (index, name) in (application.unrestrictedData ?? []).enumerated() {
            guard let rule = governed.firstIndex(of: name) else { continue }
            error(
                place(document, "spec.unrestrictedData[\(index)]", application.location),
                "spec.unrestrictedData[\(index)]: \"\(name)\" is governed by spec.residency[\(rule)]; a data class is either under residency rules or unrestricted, not both"
            )
        }
        let declared = application.dataClasses
        let uses = services.map { (document: "Service/\($0.name)", data: $0.data, location: $0.location) }
            + databases.map { (document: "Database/\($0.name)", data: $0.data, location: $0.location) }
        var undeclared: Set<String> = []
        for use in uses.sorted(by: { $0.location < $1.location }) {
            for (index, name) in use.data.enumerated() where !declared.contains(name) {
                let meant = Suggestion.closest(to: name, in: declared)
                guard application.unrestrictedData != nil || meant != nil else {
                    undeclared.insert(name)
                    continue
                }
                let hint = meant.map { "; did you mean \"\($0)\"?" }
                    ?? "; declare it in spec.unrestrictedData or a spec.residency rule of Application \"\(application.name)\" (\(application.location))"
                error(
                    place(use.document, "spec.data[\(index)]", use.location),
                    "spec.data[\(index)]: no data class named \"\(name)\" is declared\(hint)"
                )
            }
        }
        guard !undeclared.isEmpty else { return }
        let list = undeclared.sorted().joined(separator: ", ")
        // A warning, not an error: manifests written before the declarations (the shared bench's among them) still plan.
        diagnostics.append(.warning(
            place(document, "spec", application.location),
            "spec: workloads use data classes that Application \"\(application.name)\" does not declare (\(list)), which are treated as unrestricted; add unrestrictedData: [\(list)] to its spec, or a residency rule for each class a law binds"
        ))
    }

    /// A residency tag no cloud carries admits nothing, so it is most likely misspelt; warned about only where a cell
    /// falls under its rule, since a catalog may well carry rules for data or audiences this application never places.
    private mutating func checkResidencyTags(_ application: Application, clouds: [Cloud], workloads: [(name: String, scope: Scope, data: [String])]) {
        guard decodedCleanly, !clouds.isEmpty, seen.filter({ $0.kind == .Cloud }).count == clouds.count else { return }
        let tags = Set(clouds.flatMap(\.jurisdiction))
        for (index, rule) in application.residency.enumerated() {
            let cells = workloads.filter { $0.data.contains(rule.data) }.map { $0.scope == .global ? $0.name : "\($0.name)@\(rule.audience)" }
            guard !cells.isEmpty else { continue }
            let named = cells.count > 3 ? cells.prefix(3).joined(separator: ", ") + " and \(cells.count - 3) more" : cells.joined(separator: ", ")
            for (position, tag) in rule.allowed.enumerated() where !tags.contains(tag) {
                let path = "spec.residency[\(index)].allowed[\(position)]"
                diagnostics.append(.warning(
                    place("Application/\(application.name)", path, application.location),
                    "\(path): no cloud in the catalog has the jurisdiction tag \"\(tag)\", so it admits none of the cells under this rule (\(named))"
                        // Two letters are a country code, which is one edit from most others: a guess would mislead.
                        + (tag.count > 2 ? Suggestion.didYouMean(tag, in: tags.sorted()) : "")
                ))
            }
        }
    }

    /// A cell whose replicas cannot meet its spread has no placement; said here, at the numbers, and not as a
    /// planner failure about clouds.
    private mutating func checkSpread(_ services: [Service], application: Application) {
        for service in services {
            let document = "Service/\(service.name)"
            let spread = application.availability.overridden(by: service.availability)
            let replicas = place(document, "spec.replicas", service.location)
            if let minClouds = spread.minClouds, minClouds > service.replicas {
                error(replicas, "spec.replicas: \(service.replicas) replica\(service.replicas == 1 ? "" : "s") cannot run on minClouds \(minClouds) clouds (\(source(of: "minClouds", service, application))); raise replicas to \(minClouds) or lower minClouds")
            }
            if let share = spread.maxShare, share.numerator * service.replicas / share.denominator == 0 {
                error(replicas, "spec.replicas: maxShare \(share) of \(service.replicas) replica\(service.replicas == 1 ? "" : "s") rounds down to 0 per cloud (\(source(of: "maxShare", service, application))), so no cloud may run one; raise replicas or maxShare")
            }
        }
    }

    /// Where an availability key of a service came from: its own override, or the Application's default.
    private func source(of key: String, _ service: Service, _ application: Application) -> String {
        let own = key == "minClouds" ? service.availability?.minClouds != nil : service.availability?.maxShare != nil
        if own { return "spec.availability.\(key) at \(place("Service/\(service.name)", "spec.availability.\(key)", service.location))" }
        return "spec.availability.\(key) of Application \"\(application.name)\" at \(place("Application/\(application.name)", "spec.availability.\(key)", application.location))"
    }

    /// A rule naming a cloud or an audience that does not exist would never fire: a guard that silently guards nothing.
    private mutating func checkPolicies(_ policies: [Policy], clouds: [Cloud], application: Application?) {
        let cloudNames = clouds.map(\.name)
        let broken = brokenNames([.Cloud], decoded: Set(cloudNames))
        let audiences = application?.audiences.map(\.name)
        for policy in policies {
            let document = "Policy/\(policy.name)"
            for (index, entry) in policy.rules.enumerated() {
                switch entry.rule {
                case .denyMove(let from):
                    for (position, cloud) in from.enumerated() where complete && !cloudNames.contains(cloud) && !broken.contains(cloud) {
                        let path = "spec.rules[\(index)].denyMove.from[\(position)]"
                        error(place(document, path, entry.location), "\(path): no Cloud named \"\(cloud)\"" + Suggestion.didYouMean(cloud, in: cloudNames))
                    }
                case .requireResidency(let data, let audience, _):
                    // A misspelt class would match no cell and pass, the silent guard the Application's declarations prevent.
                    if let classes = application?.dataClasses, !classes.contains(data) {
                        let path = "spec.rules[\(index)].requireResidency.data"
                        error(place(document, path, entry.location), "\(path): no data class named \"\(data)\" is declared" + Suggestion.didYouMean(data, in: classes))
                    }
                    guard let audiences, !audiences.contains(audience) else { continue }
                    let path = "spec.rules[\(index)].requireResidency.audience"
                    error(place(document, path, entry.location), "\(path): no audience named \"\(audience)\"" + Suggestion.didYouMean(audience, in: audiences))
                default:
                    continue
                }
            }
        }
    }

    private mutating func checkServices(_ services: [Service], databases: [Database], cdns: [CDN], application: Application?) {
        let workloads = Set(services.map(\.name) + databases.map(\.name))
        let broken = brokenNames([.Service, .Database], decoded: workloads)
        let cdnNames = Set(cdns.map(\.name))
        let databasesByName = Dictionary(databases.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let governed = Set(application?.residency.map(\.data) ?? [])
        for service in services {
            let document = "Service/\(service.name)"
            for (index, dependency) in service.dependsOn.enumerated() {
                let path = "spec.dependsOn[\(index)].name"
                let location = place(document, path, service.location)
                if dependency.name == service.name {
                    error(location, "\(path): a service cannot depend on itself")
                } else if let database = databasesByName[dependency.name] {
                    // Data a law keeps in place must not flow to replicas that law does not bind.
                    let leaking = database.data.filter { governed.contains($0) && !service.data.contains($0) }
                    if !leaking.isEmpty {
                        diagnostics.append(.warning(
                            location,
                            "\(path): \"\(database.name)\" stores \(leaking.joined(separator: ", ")) data under a residency rule, but this service does not list it in spec.data, so its replicas are not held to that rule"
                        ))
                    }
                } else if workloads.contains(dependency.name) || broken.contains(dependency.name) || !complete {
                    continue
                } else if cdnNames.contains(dependency.name) {
                    error(location, "\(path): \"\(dependency.name)\" is a CDN; dependsOn names Services and Databases")
                } else {
                    error(location, "\(path): no Service or Database named \"\(dependency.name)\"" + Suggestion.didYouMean(dependency.name, in: workloads.sorted()))
                }
            }
            checkDataReachesDatabases(service, databases: service.dependsOn.compactMap { databasesByName[$0.name] }, governed: governed)
        }
    }

    /// The reverse of the warning above: governed data a service holds may land in a database it uses, and one
    /// that does not list the class is placed without the rule. A database whose classes are all unrestricted has
    /// said what it stores, so only one that lists nothing or other governed classes is in doubt.
    private mutating func checkDataReachesDatabases(_ service: Service, databases: [Database], governed: Set<String>) {
        for database in databases where database.data.isEmpty || database.data.contains(where: governed.contains) {
            for (index, name) in service.data.enumerated() where governed.contains(name) && !database.data.contains(name) {
                let path = "spec.data[\(index)]"
                diagnostics.append(.warning(
                    place("Service/\(service.name)", path, service.location),
                    "\(path): \"\(service.name)\" holds \(name) data under a residency rule and depends on \"\(database.name)\", which does not list it in spec.data, so that database is not held to the rule"
                ))
            }
        }
    }

    private mutating func checkDatabases(_ databases: [Database], application: Application) {
        guard application.portability == .strict else { return }
        for database in databases where !Application.portableEngines.contains(database.engine) {
            error(
                place("Database/\(database.name)", "spec.engine", database.location),
                "spec.engine: \"\(database.engine)\" is not portable, and Application \"\(application.name)\" sets portability: strict; use one of \(Application.portableEngines.joined(separator: ", "))"
            )
        }
    }

    /// Only with every Cloud decoded, and some: a catalog with a broken entry, or none, would make deliverable
    /// databases look refused. An engine the portability rule refused has its error already.
    private mutating func checkDelivery(_ databases: [Database], clouds: [Cloud], application: Application) {
        guard !clouds.isEmpty, seen.filter({ $0.kind == .Cloud }).count == clouds.count else { return }
        let check = DeliveryCheck(clouds: clouds, standbyRule: standbyRule)
        for database in databases where application.portability != .strict || Application.portableEngines.contains(database.engine) {
            guard let problem = check.problem(database) else { continue }
            error(place("Database/\(database.name)", problem.key, database.location), problem.message)
        }
    }

    private mutating func checkCDNs(_ cdns: [CDN], services: [Service], databases: [Database], application: Application?) {
        let byName = Dictionary(services.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let broken = brokenNames([.Service], decoded: Set(byName.keys))
        let databaseNames = Set(databases.map(\.name))
        for cdn in cdns {
            let document = "CDN/\(cdn.name)"
            for (index, origin) in cdn.origins.enumerated() where !broken.contains(origin) && (complete || byName[origin] != nil) {
                let location = place(document, "spec.origins[\(index)]", cdn.location)
                guard let service = byName[origin] else {
                    let hint = databaseNames.contains(origin) ? "; it is a Database, and a CDN fronts public Services"
                        : Suggestion.didYouMean(origin, in: byName.keys.sorted())
                    error(location, "spec.origins[\(index)]: no Service named \"\(origin)\"" + hint)
                    continue
                }
                if !service.isPublic {
                    error(location, "spec.origins[\(index)]: Service \"\(origin)\" is not public; set expose.public: true on it (\(service.location)) to put a CDN in front of it")
                }
            }
            guard let audiences = application?.audiences.map(\.name) else { continue }
            for (index, audience) in (cdn.audiences ?? []).enumerated() where !audiences.contains(audience) {
                error(
                    place(document, "spec.audiences[\(index)]", cdn.location),
                    "spec.audiences[\(index)]: no audience named \"\(audience)\"" + Suggestion.didYouMean(audience, in: audiences)
                )
            }
        }
    }

    /// Catalogs serve many applications, so latencies to other audiences are normal; a key that looks like a
    /// misspelt audience of this application, which the cloud then lacks, is worth a warning.
    private mutating func checkLatencyKeys(_ clouds: [Cloud], application: Application) {
        let audiences = application.audiences.map(\.name)
        for cloud in clouds {
            let missing = audiences.filter { cloud.latencyMs[$0] == nil }
            for key in cloud.latencyMs.keys.sorted() where !audiences.contains(key) {
                guard let meant = Suggestion.closest(to: key, in: missing) else { continue }
                diagnostics.append(.warning(
                    place("Cloud/\(cloud.name)", "spec.latencyMs.\(key)", cloud.location),
                    "spec.latencyMs: \"\(key)\" is no audience of Application \"\(application.name)\"; did you mean \"\(meant)\"? Without an entry for \"\(meant)\", public services serving it cannot use this cloud"
                ))
            }
        }
    }

    /// `cloudLatencyMs` names clouds of this catalog, and a pair written on both sides says the same both times: the
    /// figure counts both ways (`CloudLatency`), so two figures would leave the planner to pick one.
    private mutating func checkCloudLatency(_ clouds: [Cloud]) {
        let byName = Dictionary(clouds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let broken = brokenNames([.Cloud], decoded: Set(byName.keys))
        for cloud in clouds.sorted(by: { $0.location < $1.location }) {
            for (other, value) in cloud.cloudLatencyMs.sorted(by: { $0.key < $1.key }) {
                let location = place("Cloud/\(cloud.name)", "spec.cloudLatencyMs.\(other)", cloud.location)
                guard let target = byName[other] else {
                    guard complete, !broken.contains(other) else { continue }
                    error(location, "spec.cloudLatencyMs: no Cloud named \"\(other)\"" + Suggestion.didYouMean(other, in: byName.keys.sorted()))
                    continue
                }
                // Reported once, on the side written later.
                guard let written = target.cloudLatencyMs[cloud.name], written != value, target.location < cloud.location else { continue }
                error(
                    location,
                    "spec.cloudLatencyMs.\(other): \(NumberText.format(value)) ms, but Cloud \"\(other)\" gives \(NumberText.format(written)) ms to \"\(cloud.name)\" at \(place("Cloud/\(other)", "spec.cloudLatencyMs.\(cloud.name)", target.location)); a pair has one latency, give it on one side"
                )
            }
        }
    }
}
