public import Foundation
import MCloudCore

/// A Keystone token: its value (from `X-Subject-Token`, never logged), expiry, scope and service catalog.
public struct Token: Sendable, Hashable, CustomStringConvertible {
    public var value: String
    public var expiresAt: Date
    public var userID: String?
    public var projectID: String?
    public var catalog: ServiceCatalog

    public init(value: String, expiresAt: Date, userID: String?, projectID: String?, catalog: ServiceCatalog) {
        self.value = value
        self.expiresAt = expiresAt
        self.userID = userID
        self.projectID = projectID
        self.catalog = catalog
    }

    public var description: String { "token for project \(projectID ?? "none"), expires \(expiresAt)" }

    /// Reads the body of `POST /v3/auth/tokens`.
    static func decode(value: String, body: JSONValue) throws(OpenStackError) -> Token {
        guard let token = body["token"], let expiry = token["expires_at"]?.stringValue, let expiresAt = parseTime(expiry) else {
            throw .invalidResponse("Keystone's token has no expires_at")
        }
        return Token(
            value: value, expiresAt: expiresAt, userID: token["user"]?["id"]?.stringValue,
            projectID: token["project"]?["id"]?.stringValue, catalog: ServiceCatalog.decode(token["catalog"] ?? .array([]))
        )
    }

    /// `2026-11-30T04:41:44.000000Z`: ISO 8601 with optional fractions; Keystone always writes UTC.
    static func parseTime(_ text: String) -> Date? {
        var trimmed = text
        if let dot = trimmed.firstIndex(of: ".") {
            let zone = trimmed[dot...].firstIndex { $0 == "Z" || $0 == "+" || $0 == "-" }
            trimmed = String(trimmed[..<dot]) + (zone.map { String(trimmed[$0...]) } ?? "Z")
        }
        if !trimmed.hasSuffix("Z"), !trimmed.dropFirst(19).contains(where: { $0 == "+" || $0 == "-" }) { trimmed += "Z" }
        return ISO8601DateFormatter().date(from: trimmed)
    }
}

/// The token's catalog: which services are where, by interface and region.
public struct ServiceCatalog: Sendable, Hashable {
    public struct Endpoint: Sendable, Hashable {
        public var type: String
        public var interface: String
        public var region: String?
        public var url: String
    }

    public var endpoints: [Endpoint]

    public init(endpoints: [Endpoint]) {
        self.endpoints = endpoints
    }

    /// Other names clients use for the same service type (the service-types authority's aliases).
    static let aliases: [String: [String]] = [
        "block-storage": ["block-storage", "volumev3", "volume"], "volumev3": ["volumev3", "block-storage", "volume"],
        "compute": ["compute"], "network": ["network"], "database": ["database"], "identity": ["identity"], "image": ["image"],
    ]

    static func decode(_ catalog: JSONValue) -> ServiceCatalog {
        var endpoints: [Endpoint] = []
        for service in catalog.arrayItems {
            guard let type = service["type"]?.stringValue else { continue }
            for endpoint in service["endpoints"]?.arrayItems ?? [] {
                guard let url = endpoint["url"]?.stringValue, let interface = endpoint["interface"]?.stringValue else { continue }
                endpoints.append(Endpoint(type: type, interface: interface, region: endpoint["region_id"]?.stringValue ?? endpoint["region"]?.stringValue, url: url))
            }
        }
        return ServiceCatalog(endpoints: endpoints)
    }

    /// The URL of `type` for the interface and region, without a trailing slash; the first alias present wins.
    public func url(type: String, interface: String, region: String?) throws(OpenStackError) -> String {
        for candidate in Self.aliases[type] ?? [type] {
            let matches = endpoints.filter { $0.type == candidate && $0.interface == interface && (region == nil || $0.region == region) }
            if let match = matches.first {
                return match.url.hasSuffix("/") ? String(match.url.dropLast()) : match.url
            }
        }
        let offered = endpoints.filter { (Self.aliases[type] ?? [type]).contains($0.type) }
        let place = "interface \(interface)" + (region.map { " in region \($0)" } ?? "")
        guard offered.isEmpty else {
            let seen = Set(offered.map { "\($0.interface)@\($0.region ?? "any region")" }).sorted().joined(separator: ", ")
            throw .noEndpoint("no \(type) endpoint for \(place) (the catalog has \(seen))")
        }
        let types = Set(endpoints.map(\.type)).sorted().joined(separator: ", ")
        throw .noEndpoint("the cloud offers no \(type) service (its catalog has \(types.isEmpty ? "nothing" : types))")
    }
}
