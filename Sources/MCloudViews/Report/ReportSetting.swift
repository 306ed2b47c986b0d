public import MCloudCore

/// What the report draws beside the plan document: the application's audiences and the laws that fence their data,
/// the catalog's clouds with their vendors and jurisdictions, and whom each CDN serves; taken from the model the
/// manifests give, which a saved plan does not hold.
public struct ReportSetting: Sendable {
    public struct Audience: Sendable, Hashable {
        public var name: String
        public var jurisdiction: String
        public var latencyMs: Double?
        public var rules: [Application.ResidencyRule]
    }

    public struct Cloud: Sendable, Hashable {
        public var name: String
        public var vendor: String
        public var region: String
        public var jurisdiction: [String]
    }

    public var audiences: [Audience]
    /// Every cloud of the catalog, by name.
    public var clouds: [Cloud]
    /// The audiences each CDN serves, by CDN name.
    public var cdnAudiences: [String: [String]]
    /// Where the plan came from, in a phrase: `Manifests/retail-bank, the saved plan retail.plan`.
    public var source: String

    public init(model: Model, source: String) {
        let application = model.application
        audiences = application.audiences.map { audience in
            Audience(
                name: audience.name, jurisdiction: audience.jurisdiction, latencyMs: audience.latencyMs,
                rules: application.residency.filter { $0.audience == audience.name }
            )
        }
        clouds = model.clouds.map { Cloud(name: $0.name, vendor: $0.vendor, region: $0.region, jurisdiction: $0.jurisdiction) }
            .sorted { $0.name < $1.name }
        cdnAudiences = Dictionary(model.cdns.map { ($0.name, $0.audiences ?? application.audiences.map(\.name)) }, uniquingKeysWith: { first, _ in first })
        self.source = source
    }
}
