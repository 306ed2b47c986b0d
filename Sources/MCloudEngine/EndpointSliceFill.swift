public import MCloudProvider
import MCloudCore

/// Fills the EndpointSlices rendering leaves empty, and the egress NetworkPolicies it leaves open to any address, with
/// the addresses the providers report for what each names (`ResourceBody.endpointSources`; docs/connectivity.md, Names): at plan time from the refresh, so the plan shows a
/// changed address as a change and an unchanged one as none; at apply time again from what this apply made or
/// changed, so a slice made with its database, or rewritten by a failover or placement move, holds the new address.
public enum EndpointSliceFill {
    /// Each slice among `desired` with the addresses `reported` for its sources, in the order its annotation names
    /// them, without repeats. A slice none of whose sources has reported addresses keeps what the state recorded for
    /// it when it named the same sources (a plan without refresh), else stays empty until apply fills it. A source
    /// that a switchover moved (`State.primaries`) stands for the member that is its cell's primary now.
    public static func filled(_ desired: [DesiredResource], reported: [ResourceAddress: [String]], state: State) -> [DesiredResource] {
        desired.map { resource in
            // A policy that names no sources (a cell's own) is left as rendered.
            let sources = ResourceBody(resource.body).endpointSources
            guard !sources.isEmpty else { return resource }
            if let addresses = addresses(of: sources.map { state.primaries[$0] ?? $0 }, in: reported) { return with(addresses, resource) }
            if let recorded = state[resource.address].map({ ResourceBody($0.attributes) }), recorded.endpointSources == sources {
                return with(recorded.targetAddresses, resource)
            }
            return resource
        }
    }

    /// `resource` refilled from `reported` just before it is applied, when this apply has reported addresses for one
    /// of its sources; the addresses the plan gave it are kept for sources with none reported here. `primaries` as in
    /// `filled`.
    static func refilled(_ resource: DesiredResource, reported: [ResourceAddress: [String]], primaries: [ResourceAddress: ResourceAddress]) -> DesiredResource {
        guard ResourceBody.addressFilledKinds.contains(resource.type) else { return resource }
        let body = ResourceBody(resource.body)
        let sources = body.endpointSources.map { primaries[$0] ?? $0 }
        guard let fresh = addresses(of: sources, in: reported) else { return resource }
        let planned = sources.allSatisfy { reported[$0] != nil } ? [] : body.targetAddresses
        return with(fresh + planned, resource)
    }

    /// Why each egress policy among `desired` (as filled) that follows its sources' addresses still goes to any
    /// address, by the policy's address: a source that exists reports no IPv4 address (a name that resolves nowhere,
    /// a load balancer not given one yet), so apply has nothing to narrow it to. A source not made yet gives its
    /// addresses when apply makes it, so it is not one. Nothing is left open without the plan saying so
    /// (docs/security.md, M7).
    static func openEgress(_ desired: [DesiredResource], exists: (ResourceAddress) -> Bool) -> [ResourceAddress: String] {
        var open: [ResourceAddress: String] = [:]
        for resource in desired where resource.type == .networkPolicy {
            let body = ResourceBody(resource.body)
            let silent = body.endpointSources.filter(exists)
            guard !silent.isEmpty, body.targetAddresses.isEmpty else { continue }
            let ports = (body.document.value(at: ["spec", "egress"])?.arrayItems ?? []).flatMap { $0["ports"]?.arrayItems ?? [] }
                .compactMap { $0["port"]?.intValue }.map(String.init)
            let on = ports.isEmpty ? "any port" : "port \(ports.joined(separator: ", "))"
            open[resource.address] = "egress stays open to any address on \(on): \(silent.map(\.rawValue).joined(separator: ", ")) "
                + "\(silent.count == 1 ? "reports" : "report") no IPv4 address to narrow it to"
        }
        return open
    }

    /// The addresses a provider reported in `attributes`, for `reported`.
    static func reportedAddresses(_ attributes: JSONValue) -> [String]? {
        let addresses = ResourceBody(attributes).reportedAddresses
        return addresses.isEmpty ? nil : addresses
    }

    /// Nil when no source has any.
    private static func addresses(of sources: [ResourceAddress], in reported: [ResourceAddress: [String]]) -> [String]? {
        let found = sources.compactMap { reported[$0] }
        return found.isEmpty ? nil : found.flatMap { $0 }
    }

    private static func with(_ addresses: [String], _ resource: DesiredResource) -> DesiredResource {
        var seen = Set<String>()
        var filled = resource
        filled.body = ResourceBody(resource.body).settingTargetAddresses(addresses.filter { seen.insert($0).inserted }).document
        return filled
    }
}
