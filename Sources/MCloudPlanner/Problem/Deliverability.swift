import MCloudCore
import MCloudDatabaseEngines

/// Whether a cloud can deliver a database primary the way its `hosting` allows: the cloud's managed engine
/// (`offers.dbaas`, in the version asked where the catalog lists versions; not with `hosting: vm`), or its VMs when the
/// engine catalog has a recipe for the engine and version on the cloud's VM image family whose standbys replicate, if
/// the database has any and the model's `StandbyRule` asks it (not with `hosting: managed`). A placement the providers
/// could not carry out is never planned.
struct Deliverability {
    let standbyRule: StandbyRule

    func passes(_ database: Database, _ cloud: Cloud) -> Bool {
        database.runsManaged(on: cloud) || (database.hosting != .managed && runsOnVM(database, cloud))
    }

    /// A recipe for the engine and version on the cloud's image family, whose standbys replicate if it has any.
    func runsOnVM(_ database: Database, _ cloud: Cloud) -> Bool {
        guard cloud.offers.vm, let recipe = recipe(database, cloud) else { return false }
        return database.standbys == 0 || standbyRule == .capacityOnly || recipe.replicates
    }

    private func recipe(_ database: Database, _ cloud: Cloud) -> Recipe? {
        ImageFamily(rawValue: cloud.vmImage.family).flatMap { EngineCatalog.recipe(engine: database.engine, version: database.version, family: $0) }
    }

    /// Why the cloud cannot deliver it; nil when it can.
    func reason(_ database: Database, _ cloud: Cloud) -> Reason? {
        guard !passes(database, cloud) else { return nil }
        let engine = database.engine
        // A cloud that sells the engine in other versions says which, so the reader sees why it is not this one.
        let noManaged = cloud.offers.dbaas.contains(engine)
            ? "no managed \(engine) \(database.version) (it sells \((cloud.offers.dbaasVersions[engine] ?? []).joined(separator: ", ")))"
            : "no managed \(engine)"
        switch database.hosting {
        case .managed:
            return Reason(.capability, "hosting: managed, and \(noManaged) (offers.dbaas)")
        case .vm, .any:
            let managed = database.hosting == .vm
                ? (cloud.offers.dbaas.contains(engine) ? "hosting: vm, so not its managed \(engine)" : "hosting: vm")
                : noManaged
            guard cloud.offers.vm else {
                return Reason(.capability, database.hosting == .any ? "no VMs and \(noManaged)" : "\(managed), and no VMs")
            }
            let family = cloud.vmImage.family
            if let recipe = recipe(database, cloud) {
                return Reason(.capability, "\(managed), and standbys: \(database.standbys), whose \(recipe) cannot replicate yet")
            }
            let series = ImageFamily(rawValue: family).map { EngineCatalog.series(engine: engine, family: $0) } ?? []
            let known = series.isEmpty ? "none" : series.joined(separator: ", ")
            return Reason(.capability, "\(managed), and no \(engine) \(database.version) recipe for its VM image \(family) (recipes: \(known))")
        }
    }
}
