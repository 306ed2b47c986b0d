/// How to trust the server and who to be: certificates and keys in memory, as kubeconfig `-data` fields give them.
public struct TLSConfiguration: Sendable, Hashable {
    /// PEM of the CAs to trust instead of the system's; nil trusts the system store.
    public var certificateAuthorityPEM: [UInt8]?
    public var clientCertificatePEM: [UInt8]?
    public var clientKeyPEM: [UInt8]?
    /// Skips certificate checks (kubeconfig `insecure-skip-tls-verify`); never the default.
    public var insecureSkipVerify: Bool

    public init(
        certificateAuthorityPEM: [UInt8]? = nil, clientCertificatePEM: [UInt8]? = nil, clientKeyPEM: [UInt8]? = nil,
        insecureSkipVerify: Bool = false
    ) {
        self.certificateAuthorityPEM = certificateAuthorityPEM
        self.clientCertificatePEM = clientCertificatePEM
        self.clientKeyPEM = clientKeyPEM
        self.insecureSkipVerify = insecureSkipVerify
    }

    public static let system = TLSConfiguration()
}

/// Limits on one attempt.
public struct HTTPTimeouts: Sendable, Hashable {
    public var connect: Double
    public var total: Double

    public init(connect: Double = 10, total: Double = 60) {
        self.connect = connect
        self.total = total
    }
}
