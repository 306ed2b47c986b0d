public import MCloudCrypto

/// A database server's TLS key and certificate, issued by its application's `ApplicationCA` for the names and
/// addresses its clients use. The key's seed is derived from the root (kind `certificateKey`, the cell, no service),
/// validity is the authority's, so the same root and names give the same PEM at every plan and apply.
public struct ServerCertificate: Sendable {
    public let certificatePEM: String
    /// The issuing authority's certificate, what clients verify the server against.
    public let authorityPEM: String
    /// PKCS #8 PEM: it goes to the server alone (a root-only file of its user data, docs/security.md).
    public let privateKeyPEM: String

    public init(
        root: SecretRoot, authority: CertificateAuthority, application: String, cell: String, dnsNames: [String], ipAddresses: [String],
        generation: UInt32 = 1
    ) throws(SecretsError) {
        let purpose = SecretPurpose(application: application, cell: cell, service: "", kind: .certificateKey, generation: generation)
        authorityPEM = authority.certificatePEM
        let seed = try root.keyMaterial(for: purpose)
        do throws(CryptoError) {
            let key = try Ed25519Key(seed: seed)
            let request = CertificateRequest(
                commonName: dnsNames.first ?? cell, dnsNames: dnsNames, ipAddresses: ipAddresses, serialNumber: ApplicationCA.serialNumber(of: key),
                notBefore: ApplicationCA.notBefore, notAfter: ApplicationCA.notAfter
            )
            certificatePEM = try authority.issue(request, for: key)
            privateKeyPEM = try key.privateKeyPEM()
        } catch {
            throw .crypto(error)
        }
    }
}
