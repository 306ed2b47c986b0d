import MCloudCore

/// The checks that need more than one document: references, duplicates, currencies, the single Application.
struct ModelChecker {
    let manifests: [Manifest]
    let sourceMap: SourceMap
    /// Kinds written in the input, including documents that failed to decode (they have their own errors).
    let kindsSeen: Set<Manifest.Kind>
    private(set) var diagnostics: [Diagnostic] = []

    init(manifests: [Manifest], sourceMap: SourceMap, kindsSeen: Set<Manifest.Kind>) {
        self.manifests = manifests
        self.sourceMap = sourceMap
        self.kindsSeen = kindsSeen
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
        for manifest in manifests {
            switch manifest {
            case .application(let application): applications.append(application)
            case .cloud(let cloud): clouds.append(cloud)
            case .service(let service): services.append(service)
            case .database(let database): databases.append(database)
            case .cdn(let cdn): cdns.append(cdn)
            }
        }
        checkUnique(clouds.map { ($0.name, $0.location, "Cloud") })
        checkUnique(services.map { ($0.name, $0.location, "Service") } + databases.map { ($0.name, $0.location, "Database") })
        checkUnique(cdns.map { ($0.name, $0.location, "CDN") })
        for extra in applications.dropFirst() {
            error(extra.location, "metadata.name: a second Application \"\(extra.name)\"; a plan has exactly one, and \"\(applications[0].name)\" is defined at \(applications[0].location); point -f at one application's folder")
        }
        if !kindsSeen.contains(.Cloud) {
            diagnostics.append(Diagnostic(.error, file: nil, "no Cloud manifests found; pass --providers DIR pointing at the cloud catalog"))
        }
        guard let application = applications.first else {
            if !kindsSeen.contains(.Application) {
                diagnostics.append(Diagnostic(.error, file: nil, "no Application manifest found; exactly one is required"))
            }
            return nil
        }
        checkApplication(application, clouds: clouds)
        checkServices(services, databases: databases, cdns: cdns, application: application)
        checkDatabases(databases, application: application)
        checkCDNs(cdns, services: services, application: application)
        checkLatencyKeys(clouds, application: application)
        guard !diagnostics.hasErrors else { return nil }
        return Model(application: application, clouds: clouds, services: services, databases: databases, cdns: cdns)
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
        for cloud in clouds where application.rate(for: cloud.pricing.currency) == nil {
            error(
                place("Cloud/\(cloud.name)", "spec.pricing.currency", cloud.location),
                "spec.pricing.currency: \(cloud.pricing.currency) has no exchange rate; add it to spec.exchangeRates of Application \"\(application.name)\" (\(application.location))"
            )
        }
    }

    private mutating func checkServices(_ services: [Service], databases: [Database], cdns: [CDN], application: Application) {
        let workloads = Set(services.map(\.name) + databases.map(\.name))
        let cdnNames = Set(cdns.map(\.name))
        let databasesByName = Dictionary(databases.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let governed = Set(application.residency.map(\.data))
        for service in services {
            let document = "Service/\(service.name)"
            for (index, dependency) in service.dependsOn.enumerated() {
                let path = "spec.dependsOn[\(index)].name"
                let location = place(document, path, service.location)
                if dependency.name == service.name {
                    error(location, "\(path): a service cannot depend on itself")
                } else if cdnNames.contains(dependency.name) {
                    error(location, "\(path): \"\(dependency.name)\" is a CDN; dependsOn names Services and Databases")
                } else if !workloads.contains(dependency.name) {
                    error(location, "\(path): no Service or Database named \"\(dependency.name)\"" + Suggestion.didYouMean(dependency.name, in: workloads.sorted()))
                } else if let database = databasesByName[dependency.name] {
                    // Data a law keeps in place must not flow to replicas that law does not bind.
                    let leaking = database.data.filter { governed.contains($0) && !service.data.contains($0) }
                    if !leaking.isEmpty {
                        diagnostics.append(.warning(
                            location,
                            "\(path): \"\(database.name)\" stores \(leaking.joined(separator: ", ")) data under a residency rule, but this service does not list it in spec.data, so its replicas are not held to that rule"
                        ))
                    }
                }
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

    private mutating func checkCDNs(_ cdns: [CDN], services: [Service], application: Application) {
        let byName = Dictionary(services.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let audiences = application.audiences.map(\.name)
        for cdn in cdns {
            let document = "CDN/\(cdn.name)"
            for (index, origin) in cdn.origins.enumerated() {
                let location = place(document, "spec.origins[\(index)]", cdn.location)
                guard let service = byName[origin] else {
                    error(location, "spec.origins[\(index)]: no Service named \"\(origin)\"" + Suggestion.didYouMean(origin, in: byName.keys.sorted()))
                    continue
                }
                if !service.isPublic {
                    error(location, "spec.origins[\(index)]: Service \"\(origin)\" is not public; set expose.public: true on it (\(service.location)) to put a CDN in front of it")
                }
            }
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
}
