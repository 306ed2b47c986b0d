public import MCloudCrypto

/// The certificate authority mcloud keeps per application: derived, never stored. Its key's seed comes from the root
/// (kind `certificateKey`, no cell, no service), and its certificate depends on nothing else, validity and serial
/// number included, so the same root gives byte-identical PEM on every machine and at every plan, and a database
/// VM's user data does not drift between plans. A rotation bumps `generation`: a new key, serial number and PEM.
public enum ApplicationCA {
    /// 2026-01-01T00:00:00Z, the scheme's epoch: a fixed start rather than the clock's, for the PEM to stay the same.
    public static let notBefore = 1_767_225_600
    /// 2046-01-01T00:00:00Z, while X.509's UTCTime still holds it; rotation, not expiry, replaces an authority.
    public static let notAfter = 2_398_377_600

    public static func purpose(application: String, generation: UInt32) -> SecretPurpose {
        SecretPurpose(application: application, cell: "", service: "", kind: .certificateKey, generation: generation)
    }

    public static func derive(root: SecretRoot, application: String, generation: UInt32 = 1) throws(SecretsError) -> CertificateAuthority {
        let seed = try root.keyMaterial(for: purpose(application: application, generation: generation))
        do throws(CryptoError) {
            let key = try Ed25519Key(seed: seed)
            let request = CertificateRequest(
                commonName: "\(application) mcloud CA \(generation)", serialNumber: serialNumber(of: key), notBefore: notBefore, notAfter: notAfter
            )
            return try CertificateAuthority(key: key, request: request)
        } catch {
            throw .crypto(error)
        }
    }

    /// The authority's certificate alone, as clients trust it (a Secret's `ca.crt`).
    public static func certificatePEM(root: SecretRoot, application: String, generation: UInt32 = 1) throws(SecretsError) -> String {
        try derive(root: root, application: application, generation: generation).certificatePEM
    }

    /// 16 bytes of the public key's SHA-256, positive and never zero (RFC 5280, 4.1.2.2): unique per key without
    /// another derivation.
    static func serialNumber(of key: Ed25519Key) -> [UInt8] {
        var serial = Array(SHA2.sha256(key.publicKey).prefix(16))
        serial[0] = serial[0] & 0x7F | 0x40
        return serial
    }
}
