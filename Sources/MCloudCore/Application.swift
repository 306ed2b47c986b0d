/// The application as a whole: who it serves, which laws bind its data, and its defaults.
public struct Application: Hashable, Sendable {
    public struct Audience: Hashable, Sendable {
        public var name: String
        public var jurisdiction: String
        /// The round-trip time public services must stay within; nil puts no limit.
        public var latencyMs: Double?

        public init(name: String, jurisdiction: String, latencyMs: Double?) {
            self.name = name
            self.jurisdiction = jurisdiction
            self.latencyMs = latencyMs
        }
    }

    public struct ResidencyRule: Hashable, Sendable {
        public var data: String
        public var audience: String
        public var allowed: [String]
        public var law: String?

        public init(data: String, audience: String, allowed: [String], law: String?) {
            self.data = data
            self.audience = audience
            self.allowed = allowed
            self.law = law
        }
    }

    public enum Portability: String, Hashable, Sendable, CaseIterable {
        case strict
        case any
    }

    /// Engines that run the same on every cloud, so a database can move between them.
    public static let portableEngines: [String] = ["clickhouse", "mongodb", "mysql", "postgresql", "redis"]

    public var name: String
    public var currency: String
    /// Value of one unit of each other currency in `currency`.
    public var exchangeRates: [String: Double]
    public var audiences: [Audience]
    public var residency: [ResidencyRule]
    /// Data classes declared free of any residency rule; nil when the manifest does not say (docs/manifests.md,
    /// "Data classes"), so a manifest from before declarations existed can be told what to add.
    public var unrestrictedData: [String]?
    public var availability: Availability
    public var portability: Portability
    public var location: SourceLocation

    public init(
        name: String, currency: String, exchangeRates: [String: Double], audiences: [Audience], residency: [ResidencyRule],
        availability: Availability, portability: Portability, location: SourceLocation, unrestrictedData: [String]? = nil
    ) {
        self.name = name
        self.currency = currency
        self.exchangeRates = exchangeRates
        self.audiences = audiences
        self.residency = residency
        self.unrestrictedData = unrestrictedData
        self.availability = availability
        self.portability = portability
        self.location = location
    }

    /// Every data class the application declares: those a residency rule governs, then the unrestricted ones.
    public var dataClasses: [String] {
        var classes: [String] = []
        for name in residency.map(\.data) + (unrestrictedData ?? []) where !classes.contains(name) {
            classes.append(name)
        }
        return classes
    }

    /// The rate that turns an amount in `code` into the application's currency.
    public func rate(for code: String) -> Double? {
        code == currency ? 1 : exchangeRates[code]
    }
}

/// Spread of a service cell over clouds; a service's keys override the application's one by one.
public struct Availability: Hashable, Sendable {
    public var minClouds: Int?
    public var maxShare: Ratio?

    public init(minClouds: Int? = nil, maxShare: Ratio? = nil) {
        self.minClouds = minClouds
        self.maxShare = maxShare
    }

    public func overridden(by other: Availability?) -> Availability {
        Availability(minClouds: other?.minClouds ?? minClouds, maxShare: other?.maxShare ?? maxShare)
    }
}

/// Whether a workload is one cell per audience or one cell for everyone.
public enum Scope: String, Hashable, Sendable, CaseIterable {
    case perAudience
    case global

    /// The cells of a workload of this scope that a cell of `audience` (nil: a global cell) joins by `dependsOn`
    /// (docs/planner.md, precise semantics 2): perAudience to perAudience the same audience's cell, anything to
    /// global the one global cell, global to perAudience every audience's cell.
    public func cells(of workload: String, from audience: String?, audiences: [String]) -> [String] {
        switch (self, audience) {
        case (.global, _): return [workload]
        case (.perAudience, .some(let audience)): return ["\(workload)@\(audience)"]
        case (.perAudience, .none): return audiences.map { "\(workload)@\($0)" }
        }
    }
}
