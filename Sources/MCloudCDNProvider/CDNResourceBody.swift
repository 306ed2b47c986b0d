public import MCloudCDN
public import MCloudCore
public import MCloudProvider
import MCloudCrypto
import MCloudHTTP
import Foundation

/// A `CDNResource` body (docs/gitops.md) read as a CDN resource spec, and a deployment read back into the body's
/// shape for the engine's comparison.
public struct CDNResourceBody: Sendable {
    public let body: JSONValue
    public let address: ResourceAddress
    public let name: String
    public let application: String
    public let origins: [(ingress: String, host: String)]
    public let cacheRules: [CDNCacheRule]

    /// Checks that the body names everything a CDN resource needs; the message names what is missing.
    public init(_ body: JSONValue, address: ResourceAddress) throws(CDNError) {
        let operation = "\(address)"
        guard let name = body.value(at: ["metadata", "name"])?.stringValue else {
            throw CDNError(.configuration, operation: operation, message: "the body has no metadata.name")
        }
        guard let application = ResourceBody(body).label(ResourceLabels.partOf) else {
            throw CDNError(.configuration, operation: operation, message: "the body has no metadata.labels[\(ResourceLabels.partOf)]")
        }
        var origins: [(String, String)] = []
        for (index, origin) in (body.value(at: ["spec", "origins"])?.arrayItems ?? []).enumerated() {
            guard let ingress = origin["ingress"]?.stringValue, let host = OriginHost.host(ingress: ingress) else {
                throw CDNError(.configuration, operation: operation, message: "spec.origins[\(index)].ingress is not the address of a rendered Ingress")
            }
            origins.append((ingress, host))
        }
        guard !origins.isEmpty else { throw CDNError(.configuration, operation: operation, message: "spec.origins is empty") }
        var rules: [CDNCacheRule] = []
        for (index, rule) in (body.value(at: ["spec", "cache"])?.arrayItems ?? []).enumerated() {
            guard let path = rule["path"]?.stringValue, let ttl = rule["ttlSeconds"]?.doubleValue, ttl >= 0 else {
                throw CDNError(.configuration, operation: operation, message: "spec.cache[\(index)] needs a path and ttlSeconds")
            }
            rules.append(CDNCacheRule(path: path, ttlSeconds: Int(ttl)))
        }
        self.body = body
        self.address = address
        self.name = name
        self.application = application
        self.origins = origins
        self.cacheRules = rules
    }

    /// The public host name: `<name with dashes>.<cloud>.cdn.mcloud.internal`, one per resource and cloud.
    public func cname(cloud: String) -> String {
        "\(name.replacingOccurrences(of: ".", with: "-")).\(cloud).cdn.mcloud.internal"
    }

    public func spec(cloud: String) -> CDNResourceSpec {
        CDNResourceSpec(
            name: name, cname: cname(cloud: cloud), origins: origins.map(\.host), cacheRules: cacheRules,
            marker: CDNMarker(application: application, digest: Self.digest(body), address: address.rawValue)
        )
    }

    /// A digest of the body that ignores key order and `1` versus `1.0`, as the engine's comparison does.
    public static func digest(_ body: JSONValue) -> String {
        String(Hex.lowercase(SHA2.sha256(Array(ResourceBody(body).canonicalText.utf8))).prefix(16))
    }

    /// The deployment in the body's shape. What the CDN reports (origins, cache rules) comes from it; what it
    /// cannot report (metadata, audiences, origin service/path/weight) from `known`, the first body whose digest
    /// the marker carries. Without one, only the reported fields are filled, so a difference shows as an update.
    public static func attributes(of deployment: CDNDeployment, known: [JSONValue]) -> JSONValue {
        let base = known.first { digest($0) == deployment.marker?.digest }
        let baseOrigins = base?.value(at: ["spec", "origins"])?.arrayItems ?? []
        let origins: [JSONValue] = deployment.origins.map { host in
            guard let (ingress, cloud) = OriginHost.ingress(host: host) else { return .object([("host", .string(host))]) }
            if let known = baseOrigins.first(where: { $0["ingress"]?.stringValue == ingress }) { return known }
            return .object([("cloud", .string(cloud)), ("ingress", .string(ingress))])
        }
        let cache: [JSONValue] = deployment.cacheRules.map { .object([("path", .string($0.path)), ("ttlSeconds", .int($0.ttlSeconds))]) }
        var spec = base?["spec"]?.objectPairs ?? []
        spec.removeAll { $0.0 == "origins" || $0.0 == "cache" }
        spec += [("origins", .array(origins)), ("cache", .array(cache))]
        var document = base?.objectPairs.filter { $0.0 != "spec" }
            ?? ResourceBody.infrastructure(kind: .cdnResource, address: ResourceAddress(deployment.marker?.address ?? "")).document.objectPairs
        document.append(("spec", .object(spec)))
        return .object(document)
    }
}
