import MCloudCore
import MCloudYAML

extension Decoder {
    func application(_ spec: YAMLNode, _ metadata: Metadata) -> Application? {
        let keys = ["currency", "exchangeRates", "audiences", "residency", "unrestrictedData", "availability", "portability"]
        guard let fields = mapping(spec, "spec", keys: keys, required: ["currency", "audiences"]) else { return nil }
        let currency = fields["currency"].flatMap { self.currency($0, "spec.currency") }
        var rates: [String: Double] = [:]
        for entry in fields["exchangeRates"].flatMap({ dictionary($0, "spec.exchangeRates") }) ?? [] {
            guard Names.isCurrencyCode(entry.key) else {
                error(entry.keyNode.location, "spec.exchangeRates: \"\(entry.key)\" is not a currency code: use three upper-case letters, such as RUB")
                continue
            }
            if let rate = number(entry.value, entry.path, positive: true) {
                rates[entry.key] = rate
            } else {
                rejectedRates.insert(entry.key)
            }
        }
        let audiences = fields["audiences"].flatMap { self.audiences($0) }
        let residency = fields["residency"].map { self.residency($0) } ?? []
        let unrestricted = fields["unrestrictedData"].map { names($0, "spec.unrestrictedData") }
        let availability = fields["availability"].map { self.availability($0, "spec.availability") } ?? Availability()
        let portability = fields["portability"].map { choice($0, "spec.portability", as: Application.Portability.self) } ?? .any
        guard let currency, let audiences, let residency, unrestricted != .some(nil), let availability, let portability else { return nil }
        return Application(
            name: metadata.name, currency: currency, exchangeRates: rates, audiences: audiences, residency: residency,
            availability: availability, portability: portability, location: metadata.location, unrestrictedData: unrestricted ?? nil
        )
    }

    private func audiences(_ node: YAMLNode) -> [Application.Audience]? {
        guard let items = list(node, "spec.audiences") else { return nil }
        if items.isEmpty {
            error(node.location, "spec.audiences must list at least one audience")
            return nil
        }
        var audiences: [Application.Audience] = []
        var seen: [String: SourceLocation] = [:]
        var valid = true
        for item in items {
            guard let fields = mapping(item.node, item.path, keys: ["name", "jurisdiction", "latencyMs"], required: ["name", "jurisdiction"]) else {
                valid = false
                continue
            }
            let name = fields["name"].flatMap { self.name($0, fields.path("name")) }
            let jurisdiction = fields["jurisdiction"].flatMap { tag($0, fields.path("jurisdiction")) }
            let latency = fields["latencyMs"].map { number($0, fields.path("latencyMs"), positive: true) }
            guard let name, let jurisdiction, latency != .some(nil) else {
                valid = false
                continue
            }
            if let first = seen[name], let node = fields["name"] {
                error(node.location, "\(fields.path("name")): audience \"\(name)\" is already defined at \(first)")
                valid = false
                continue
            }
            seen[name] = fields["name"]?.location
            audiences.append(Application.Audience(name: name, jurisdiction: jurisdiction, latencyMs: latency ?? nil))
        }
        return valid ? audiences : nil
    }

    private func residency(_ node: YAMLNode) -> [Application.ResidencyRule]? {
        guard let items = list(node, "spec.residency") else { return nil }
        var rules: [Application.ResidencyRule] = []
        var valid = true
        for item in items {
            let keys = ["data", "audience", "allowed", "law"]
            guard let fields = mapping(item.node, item.path, keys: keys, required: ["data", "audience", "allowed"]) else {
                valid = false
                continue
            }
            let data = fields["data"].flatMap { name($0, fields.path("data")) }
            let audience = fields["audience"].flatMap { name($0, fields.path("audience")) }
            let allowed = fields["allowed"].flatMap { tags($0, fields.path("allowed"), nonEmpty: true) }
            let law = fields["law"].map { nonEmptyString($0, fields.path("law")) }
            guard let data, let audience, let allowed, law != .some(nil) else {
                valid = false
                continue
            }
            rules.append(Application.ResidencyRule(data: data, audience: audience, allowed: allowed, law: law ?? nil))
        }
        return valid ? rules : nil
    }

    /// `minClouds` and `maxShare`; both optional, so a service can override one of them.
    func availability(_ node: YAMLNode, _ path: String) -> Availability? {
        guard let fields = mapping(node, path, keys: ["minClouds", "maxShare"]) else { return nil }
        let minClouds = fields["minClouds"].map { int($0, fields.path("minClouds"), min: 1) }
        let maxShare = fields["maxShare"].map { share($0, fields.path("maxShare")) }
        guard minClouds != .some(nil), maxShare != .some(nil) else { return nil }
        return Availability(minClouds: minClouds ?? nil, maxShare: maxShare ?? nil)
    }
}
