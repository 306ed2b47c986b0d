import MCloudCore
import MCloudDatabaseEngines

/// The plan-time check of every Database against the catalog: some cloud must offer its engine managed
/// (`offers.dbaas`), or offer VMs whose image family the engine catalog has a recipe of its engine and version for,
/// as its `hosting` allows. What no cloud could deliver is refused here, at `spec.engine`, `spec.version` or
/// `spec.hosting`, with what is supported.
struct DeliveryCheck {
    let clouds: [Cloud]

    /// The message and the key it belongs at; nil when some cloud can deliver the database.
    func problem(_ database: Database) -> (key: String, message: String)? {
        let engineName = database.engine
        let managed = clouds.filter { $0.offers.dbaas.contains(engineName) }.map(\.name)
        switch database.hosting {
        case .managed:
            guard managed.isEmpty else { return nil }
            return ("spec.hosting", "spec.hosting: managed, and no cloud of the catalog lists \(engineName) in offers.dbaas; set hosting: any to run it on VMs")
        case .any:
            if !managed.isEmpty { return nil }
        case .vm:
            break
        }
        let vmFamilies = Set(clouds.filter(\.offers.vm).compactMap { ImageFamily(rawValue: $0.vmImage.family) }).sorted()
        if vmFamilies.contains(where: { EngineCatalog.recipe(engine: engineName, version: database.version, family: $0) != nil }) { return nil }
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
        let notManaged = managed.isEmpty ? "no cloud offers managed \(engineName)" : "hosting: vm leaves out the managed \(engineName) of \(managed.joined(separator: ", "))"
        return (
            "spec.version",
            "spec.version: \(engineName) \"\(database.version)\" has no recipe for the VM images of the catalog (\(families)) and \(notManaged); supported: \(supported.isEmpty ? "none" : supported)"
        )
    }
}
