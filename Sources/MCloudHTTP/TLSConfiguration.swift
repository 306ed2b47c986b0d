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

/// Limits on one request, so no answer can hold mcloud up or fill its memory: how long to connect, how long the
/// request may take in all (`RetryingTransport` spreads it over the attempts and the waits between them), how long
/// an answer may go without a byte, and how large its body may be. `HTTPLimits` reads them from the environment.
public struct HTTPTimeouts: Sendable, Hashable {
    public var connect: Double
    public var total: Double
    /// Seconds of less than one byte a second (libcurl's low-speed limit) before an attempt is given up; whole seconds.
    public var stall: Double
    /// The largest body accepted, decompressed; checked as it arrives, since a chunked body announces no length.
    public var maxResponseBytes: Int

    public init(connect: Double = 10, total: Double = 120, stall: Double = 30, maxResponseBytes: Int = 256 << 20) {
        self.connect = connect
        self.total = total
        self.stall = stall
        self.maxResponseBytes = maxResponseBytes
    }
}
