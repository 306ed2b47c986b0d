/// What a certificate says: a subject, the names and addresses it is valid for, its serial number and validity.
/// Everything is given, nothing is drawn or read from the clock, so the same request and keys give the same PEM.
public struct CertificateRequest: Sendable, Equatable {
    public var commonName: String
    public var dnsNames: [String]
    public var ipAddresses: [String]
    /// Big-endian; at most 20 bytes (RFC 5280, 4.1.2.2), and positive: a first byte below 0x80.
    public var serialNumber: [UInt8]
    /// Seconds since 1970-01-01 UTC.
    public var notBefore: Int
    public var notAfter: Int

    public init(commonName: String, dnsNames: [String] = [], ipAddresses: [String] = [], serialNumber: [UInt8], notBefore: Int, notAfter: Int) {
        self.commonName = commonName
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.serialNumber = serialNumber
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// Names go into OpenSSL's `DNS:a,IP:b` text, where a comma or colon would add an entry: only the characters of
    /// host names (a leading `*.` allowed) and of IPv4 and IPv6 addresses pass.
    func validate() throws(CryptoError) {
        let hostBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.".utf8)
        let addressBytes = Set("0123456789abcdefABCDEF:.".utf8)
        for name in dnsNames {
            let host = name.hasPrefix("*.") ? name.dropFirst(2) : Substring(name)
            guard !host.isEmpty, host.utf8.allSatisfy(hostBytes.contains) else { throw .invalidCertificateRequest("\"\(name)\" is not a host name") }
        }
        for address in ipAddresses where address.isEmpty || !address.utf8.allSatisfy(addressBytes.contains) {
            throw .invalidCertificateRequest("\"\(address)\" is not an IP address")
        }
        guard !serialNumber.isEmpty, serialNumber.count <= 20, serialNumber[0] < 0x80, serialNumber.contains(where: { $0 != 0 }) else {
            throw .invalidCertificateRequest("a serial number is 1 to 20 bytes, positive and not zero")
        }
        guard notBefore < notAfter else { throw .invalidCertificateRequest("notBefore is not before notAfter") }
    }
}
