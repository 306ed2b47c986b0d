import MCloudCore

/// The one place an EndpointSlice that mcloud keeps is read and written: rendering names in an annotation the
/// resources whose addresses the slice is to hold (a database's server or managed endpoint, a service's Ingresses in
/// other clusters), and apply fills `endpoints` with the addresses their providers report (docs/connectivity.md,
/// Names). The annotation is also what orders the slice after those resources.
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

    /// The annotation's value for `sources`.
    public static func endpointSourcesValue(_ sources: [ResourceAddress]) -> String {
        sources.map(\.rawValue).joined(separator: ",")
    }
}
