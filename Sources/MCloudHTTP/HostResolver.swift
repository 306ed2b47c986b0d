/// Turns a host name a cloud gives for an endpoint (an RDS instance's, a Trove instance's, a load balancer's) into
/// the IPv4 addresses it has now, for the EndpointSlices and egress policies that follow it (docs/connectivity.md,
/// Names). Tests give their own lookup, as the names an emulator reports resolve nowhere.
public struct HostResolver: Sendable {
    private let lookUp: @Sendable (String) async -> [String]

    public init(_ lookUp: @escaping @Sendable (String) async -> [String]) {
        self.lookUp = lookUp
    }

    /// An IPv4 address is its own answer; a name that does not resolve has none.
    public func ipv4Addresses(_ host: String) async -> [String] {
        await lookUp(host)
    }

    /// The system's resolver (`/etc/hosts`, then DNS, as `nsswitch.conf` says). It blocks its thread while it asks,
    /// which a plan can afford: one lookup per managed endpoint and load balancer it reads.
    public static let system = HostResolver { host in HostLookup.ipv4(host) }
}
