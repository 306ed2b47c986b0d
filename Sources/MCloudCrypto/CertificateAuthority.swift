/// A self-signed Ed25519 certificate authority that issues server certificates (v3, `serverAuth` and `clientAuth`,
/// the names and addresses of the request as subject alternative names), as mcloud keeps one per application.
public struct CertificateAuthority: Sendable {
    public let key: Ed25519Key
    public let request: CertificateRequest
    /// The authority's certificate, for clients to verify against (a URI's `sslrootcert`, a Secret's `ca.crt`).
    public let certificatePEM: String

    public init(key: Ed25519Key, request: CertificateRequest) throws(CryptoError) {
        try request.validate()
        let signing = try OpenSSLKey(.ed25519, privateKey: key.seed)
        certificatePEM = try OpenSSLCertificate.issue(
            request, isAuthority: true, subjectKey: signing, issuerName: request.commonName, issuerKey: signing, issuerCertificate: nil
        )
        self.key = key
        self.request = request
    }

    /// A certificate for `subjectKey`, signed by this authority.
    public func issue(_ request: CertificateRequest, for subjectKey: Ed25519Key) throws(CryptoError) -> String {
        try request.validate()
        return try OpenSSLCertificate.issue(
            request, isAuthority: false, subjectKey: OpenSSLKey(.ed25519, privateKey: subjectKey.seed), issuerName: self.request.commonName,
            issuerKey: OpenSSLKey(.ed25519, privateKey: key.seed), issuerCertificate: OpenSSLCertificate(pem: certificatePEM)
        )
    }
}
