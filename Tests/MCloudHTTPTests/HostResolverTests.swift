import MCloudHTTP
import Testing

/// The system's resolver as the providers use it for an endpoint's host name: IPv4 addresses only, none for a name
/// that does not resolve.
@Suite struct HostResolverTests {
    @Test(arguments: [
        ("localhost", ["127.0.0.1"]),
        ("192.0.2.7", ["192.0.2.7"]),
        // RFC 6761: no `.invalid` name ever resolves.
        ("payments-db.mcloud.invalid", []),
        ("", []),
    ])
    func aHostNameGivesItsIPv4AddressesAndAnAddressItself(host: String, expected: [String]) async {
        #expect(await HostResolver.system.ipv4Addresses(host) == expected)
    }
}
