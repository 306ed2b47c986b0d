import MCloudCore
import MCloudDatabaseEngines

/// The plan-time check of every Database against the catalog: some cloud must offer its engine managed
/// (`offers.dbaas`), or offer VMs whose image family the engine catalog has a recipe of its engine and version for,
/// as its `hosting` allows. What no cloud could deliver is refused here, at `spec.engine`, `spec.version` or
/// `spec.hosting`, with what is supported.
struct DeliveryCheck {
    let clouds: [Cloud]
    let standbyRule: StandbyRule

    /// The message and the key it belongs at; nil when some cloud can deliver the database.
    func problem(_ database: Database) -> (key: String, message: String)? {
        let engineName = database.engine
        let managed = clouds.filter { $0.offers.sellsManaged(engineName, version: database.version) }.map(\.name)
        let otherVersions = managedVersions(engineName, except: database.version)
        switch database.hosting {
        case .managed:
            guard managed.isEmpty else { return nil }
            if let otherVersions {
                return ("spec.version", "spec.version: \(engineName) \"\(database.version)\" is sold managed by no cloud of the catalog (offers.dbaas lists \(otherVersions)); hosting: managed rules out VMs")
            }
            return ("spec.hosting", "spec.hosting: managed, and no cloud of the catalog lists \(engineName) in offers.dbaas; set hosting: any to run it on VMs")
        case .any:
            if !managed.isEmpty { return nil }
        case .vm:
            break
        }
        let vmFamilies = Set(clouds.filter(\.offers.vm).compactMap { ImageFamily(rawValue: $0.vmImage.family) }).sorted()
        let recipes = vmFamilies.compactMap { EngineCatalog.recipe(engine: engineName, version: database.version, family: $0) }
        if !recipes.isEmpty {
            let standbysHold = database.standbys == 0 || standbyRule == .capacityOnly || recipes.contains(where: \.replicates)
            return standbysHold ? nil : standbysProblem(database, managed: managed)
        }
        if let otherVersions, Engine(named: engineName)?.managedOnlyReason != nil || Engine(named: engineName) == nil {
            return ("spec.version", "spec.version: \(engineName) \"\(database.version)\" is sold managed by no cloud of the catalog (offers.dbaas lists \(otherVersions)), and mcloud runs \(engineName) on no VM")
        }
        guard let engine = Engine(named: engineName) else {
            let known = Engine.allCases.filter { $0.managedOnlyReason == nil }.map { $0 == .mysql ? "mysql (alias mariadb)" : $0.rawValue }.sorted()
            return ("spec.engine", "spec.engine: mcloud has no recipe for \"\(engineName)\" and no cloud offers it in offers.dbaas; engines with recipes: \(known.joined(separator: ", "))")
        }
        if let reason = engine.managedOnlyReason {
            return ("spec.engine", "spec.engine: \(engineName): \(reason); no cloud of the catalog lists \(engineName) in offers.dbaas")
        }
        if vmFamilies.isEmpty {
            if database.hosting == .vm {
                return ("spec.hosting", "spec.hosting: vm, and no cloud of the catalog offers VMs (offers.vm)\(managed.isEmpty ? "" : "; \(managed.joined(separator: ", ")) offer \(engineName) managed: set hosting: any")")
            }
            return ("spec.engine", "spec.engine: no cloud of the catalog offers VMs (offers.vm) or managed \(engineName) (offers.dbaas)")
        }
        let families = vmFamilies.map(\.rawValue).joined(separator: ", ")
        let supported = EngineCatalog.supportedVersions(engine: engineName, families: vmFamilies)
        let notManaged = if !managed.isEmpty {
            "hosting: vm leaves out the managed \(engineName) of \(managed.joined(separator: ", "))"
        } else if let otherVersions {
            "no cloud sells it managed (offers.dbaas lists \(otherVersions))"
        } else {
            "no cloud offers managed \(engineName)"
        }
        return (
            "spec.version",
            "spec.version: \(engineName) \"\(database.version)\" has no recipe for the VM images of the catalog (\(families)) and \(notManaged); supported: \(supported.isEmpty ? "none" : supported)"
        )
    }

    /// Standbys on VMs whose recipe cannot replicate yet: mcloud never makes a standby that holds no data.
    private func standbysProblem(_ database: Database, managed: [String]) -> (key: String, message: String) {
        let replicating = Engine.allCases.filter { engine in EngineCatalog.recipes.contains { $0.engine == engine && $0.replicates } }.map(\.rawValue)
        let fix = managed.isEmpty
            ? "set standbys: 0, or run it where a cloud sells \(database.engine) managed (offers.dbaas)"
            : "set standbys: 0, or hosting: any for the managed \(database.engine) of \(managed.joined(separator: ", "))"
        return (
            "spec.standbys",
            "spec.standbys: \(database.standbys), and mcloud's \(database.engine) \"\(database.version)\" VMs cannot replicate to a standby yet (standbys replicate on VMs for \(replicating.joined(separator: ", "))); \(fix)"
        )
    }

    /// The versions the catalog sells `engine` managed in, as a reader is told them (`"15", "16" on aws-fra, aws-irl`);
    /// nil when no cloud lists versions of it, or one sells it in any version (then `version` is not the reason).
    private func managedVersions(_ engine: String, except version: String) -> String? {
        let selling = clouds.filter { $0.offers.dbaas.contains(engine) }
        guard !selling.isEmpty, selling.allSatisfy({ $0.offers.dbaasVersions[engine] != nil }),
              !selling.contains(where: { $0.offers.sellsManaged(engine, version: version) }) else { return nil }
        // Clouds selling the same versions are named together, so a vendor's regions make one entry.
        var groups: [(versions: [String], clouds: [String])] = []
        for cloud in selling {
            let versions = cloud.offers.dbaasVersions[engine] ?? []
            if let index = groups.firstIndex(where: { $0.versions == versions }) {
                groups[index].clouds.append(cloud.name)
            } else {
                groups.append((versions, [cloud.name]))
            }
        }
        return groups.map { group in
            group.versions.map { "\"\($0)\"" }.joined(separator: ", ") + " on " + group.clouds.joined(separator: ", ")
        }.joined(separator: "; ")
    }
}
