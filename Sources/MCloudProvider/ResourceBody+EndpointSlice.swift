import MCloudCore

/// The one place the objects that follow a connection's addresses are read and written: rendering names in an
/// annotation the resources whose addresses an EndpointSlice is to hold, and a NetworkPolicy its egress is to admit
/// (a database's server or managed endpoint, a service's Ingresses in other clusters), and apply fills the slice's
/// `endpoints` and the policy's egress destinations with the addresses their providers report under
/// `status.addresses` (docs/connectivity.md, Names). The annotation is also what orders them after those resources.
extension ResourceBody {
    /// The annotation with the addresses of the resources the slice points at, separated by commas.
    public static let endpointSourcesAnnotation = "mcloud.io/endpoints-from"
    /// The `endpointslice.kubernetes.io/managed-by` value of a slice mcloud keeps, so the cluster's own controllers
    /// leave it alone.
    public static let endpointSliceManager = "mcloud.io"

    /// The kinds whose addresses apply fills in.
    public static let addressFilledKinds: Set<ResourceKind> = [.endpointSlice, .networkPolicy]

    /// The resources whose addresses the slice holds or the policy admits, in the order rendered; empty for any other
    /// body.
    public var endpointSources: [ResourceAddress] {
        guard Self.addressFilledKinds.contains(kind),
            let value = document.value(at: ["metadata", "annotations", Self.endpointSourcesAnnotation])?.stringValue
        else { return [] }
        return value.split(separator: ",").map { ResourceAddress(String($0)) }
    }

    /// Where a provider reports the addresses a resource is reached at (a database server's), in the attributes it
    /// observes: never desired, so the engine's comparison, which looks only at desired fields, passes over it.
    public static let reportedAddressesPath = ["status", "addresses"]

    /// The addresses the provider reported, in its order; empty when it reported none.
    public var reportedAddresses: [String] {
        document.value(at: Self.reportedAddressesPath)?.arrayItems.compactMap(\.stringValue) ?? []
    }

    /// The body with `addresses` reported; none removes the field.
    public func reportingAddresses(_ addresses: [String]) -> ResourceBody {
        ResourceBody(Self.setting(Self.reportedAddressesPath, to: addresses.isEmpty ? nil : .array(addresses.map(JSONValue.string)), in: document))
    }

    /// The addresses of the slice's endpoints, or the policy's egress destinations, in order.
    public var targetAddresses: [String] {
        if kind == .networkPolicy {
            let rule = document.value(at: ["spec", "egress"])?.arrayItems.first
            return (rule?["to"]?.arrayItems ?? []).compactMap { $0.value(at: ["ipBlock", "cidr"])?.stringValue }.map { cidr in
                cidr.hasSuffix("/32") ? String(cidr.dropLast(3)) : cidr
            }
        }
        return (document["endpoints"]?.arrayItems ?? []).flatMap { $0["addresses"]?.arrayItems.compactMap(\.stringValue) ?? [] }
    }

    /// The slice with one ready endpoint per address, or the policy with each egress rule going to exactly those
    /// addresses (any destination without any, as rendered), in the order given. Only IPv4 addresses go
    /// in: the slice's address type, and what a `/32` block means.
    public func settingTargetAddresses(_ addresses: [String]) -> ResourceBody {
        let addresses = addresses.filter(Self.isIPv4)
        guard kind == .networkPolicy else {
            let endpoints = addresses.map { address -> JSONValue in
                .object([("addresses", .array([.string(address)])), ("conditions", .object([("ready", .bool(true))]))])
            }
            return ResourceBody(Self.setting(["endpoints"], to: .array(endpoints), in: document))
        }
        let destinations = addresses.map { address -> JSONValue in .object([("ipBlock", .object([("cidr", .string(address + "/32"))]))]) }
        let rules = (document.value(at: ["spec", "egress"])?.arrayItems ?? []).map { rule in
            Self.setting(["to"], to: destinations.isEmpty ? nil : .array(destinations), in: rule)
        }
        return ResourceBody(Self.setting(["spec", "egress"], to: .array(rules), in: document))
    }

    /// Four decimal numbers of at most 255, without leading zeros, as the API server's validation wants them.
    static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            guard let value = Int(part), (0...255).contains(value), part.allSatisfy(\.isASCII) else { return false }
            return part == "0" || !part.hasPrefix("0")
        }
    }

    /// The annotation's value for `sources`.
    public static func endpointSourcesValue(_ sources: [ResourceAddress]) -> String {
        sources.map(\.rawValue).joined(separator: ",")
    }
}
