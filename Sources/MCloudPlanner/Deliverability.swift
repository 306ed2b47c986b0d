import MCloudCore
import MCloudDatabaseEngines

/// Whether a cloud can deliver a database primary: the cloud's managed engine (`offers.dbaas`), or its VMs when the
/// engine catalog has a recipe for the engine and version on the cloud's VM image family. A placement the providers
/// could not carry out is never planned.
enum Deliverability {
    static func passes(_ database: Database, _ cloud: Cloud) -> Bool {
        cloud.offers.dbaas.contains(database.engine) || runsOnVM(database, cloud)
    }

    static func runsOnVM(_ database: Database, _ cloud: Cloud) -> Bool {
        guard cloud.offers.vm, let family = ImageFamily(rawValue: cloud.vmImage.family) else { return false }
        return EngineCatalog.recipe(engine: database.engine, version: database.version, family: family) != nil
    }

    /// Why the cloud cannot deliver it; nil when it can.
    static func reason(_ database: Database, _ cloud: Cloud) -> Reason? {
        guard !passes(database, cloud) else { return nil }
        guard cloud.offers.vm else { return Reason(.capability, "no VMs and no managed \(database.engine)") }
        let family = cloud.vmImage.family
        let series = ImageFamily(rawValue: family).map { EngineCatalog.series(engine: database.engine, family: $0) } ?? []
        let known = series.isEmpty ? "none" : series.joined(separator: ", ")
        return Reason(.capability, "no managed \(database.engine), and no \(database.engine) \(database.version) recipe for its VM image \(family) (recipes: \(known))")
    }
}
