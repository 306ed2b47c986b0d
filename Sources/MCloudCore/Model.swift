/// Everything a plan is made from, validated: the cloud catalog and one application with its workloads.
/// Collections are sorted by name, so whatever reads the model sees one order.
public struct Model: Hashable, Sendable {
    public var application: Application
    public var clouds: [Cloud]
    public var services: [Service]
    public var databases: [Database]
    public var cdns: [CDN]
    /// Checked on every plan, after it is made; in file order.
    public var policies: [Policy]
    /// Which standbys the planner may place (`StandbyRule`); what validation checked them against.
    public var standbyRule: StandbyRule

    public init(
        application: Application, clouds: [Cloud], services: [Service], databases: [Database], cdns: [CDN], policies: [Policy] = [],
        standbyRule: StandbyRule = .mustReplicate
    ) {
        self.application = application
        self.clouds = clouds.sorted { $0.name < $1.name }
        self.services = services.sorted { $0.name < $1.name }
        self.databases = databases.sorted { $0.name < $1.name }
        self.cdns = cdns.sorted { $0.name < $1.name }
        self.policies = policies.sorted { $0.location < $1.location }
        self.standbyRule = standbyRule
    }

    /// Every placeable unit: one per audience of a perAudience workload, one for a global one; sorted by name.
    public var cells: [Cell] {
        let audiences = application.audiences.map(\.name)
        func expand(_ name: String, _ kind: Cell.Kind, _ scope: Scope) -> [Cell] {
            switch scope {
            case .global: return [Cell(workload: name, kind: kind, audience: nil)]
            case .perAudience: return audiences.map { Cell(workload: name, kind: kind, audience: $0) }
            }
        }
        let cells = services.flatMap { expand($0.name, .service, $0.scope) } + databases.flatMap { expand($0.name, .database, $0.scope) }
        return cells.sorted { $0.name < $1.name }
    }
}
