import MCloudCore

/// The one place an EndpointSlice that mcloud keeps is read and written: rendering names in an annotation the
/// resources whose addresses the slice is to hold (a database's server or managed endpoint, a service's Ingresses in
/// other clusters), and apply fills `endpoints` with the addresses their providers report under `status.addresses`
/// (docs/connectivity.md, Names). The annotation is also what orders the slice after those resources.
extension ResourceBody {
    /// The annotation with the addresses of the resources the slice points at, separated by commas.
    public static let endpointSourcesAnnotation = "mcloud.io/endpoints-from"
    /// The `endpointslice.kubernetes.io/managed-by` value of a slice mcloud keeps, so the cluster's own controllers
    /// leave it alone.
    public static let endpointSliceManager = "mcloud.io"

    /// The resources whose addresses the slice holds, in the order rendered; empty for any other body.
    public var endpointSources: [ResourceAddress] {
        guard kind == .endpointSlice,
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

    /// The addresses of the slice's endpoints, in order.
    public var endpointAddresses: [String] {
        (document["endpoints"]?.arrayItems ?? []).flatMap { $0["addresses"]?.arrayItems.compactMap(\.stringValue) ?? [] }
    }

    /// The slice with one ready endpoint per address, in the order given; the slice's address type is IPv4, so any
    /// other address is left out.
    public func settingEndpoints(_ addresses: [String]) -> ResourceBody {
        let endpoints = addresses.filter(Self.isIPv4).map { address -> JSONValue in
            .object([("addresses", .array([.string(address)])), ("conditions", .object([("ready", .bool(true))]))])
        }
        return ResourceBody(Self.setting(["endpoints"], to: .array(endpoints), in: document))
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
