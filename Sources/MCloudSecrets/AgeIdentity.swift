import MCloudCrypto

/// An age X25519 identity, `AGE-SECRET-KEY-1...`: the operator's secret key, root of every derived secret.
///
/// `description` prints only the recipient, so logging an identity by mistake shows nothing secret.
public struct AgeIdentity: Sendable, Equatable, CustomStringConvertible {
    static let hrp = "age-secret-key-"

    let secretKey: [UInt8]
    public let recipient: AgeRecipient

    public init(secretKey: [UInt8]) throws(SecretsError) {
        guard secretKey.count == X25519.keyCount else { throw .malformedIdentity }
        self.secretKey = secretKey
        let publicKey: [UInt8]
        do {
            publicKey = try X25519.publicKey(privateKey: secretKey)
        } catch {
            throw .crypto(error)
        }
        recipient = try AgeRecipient(publicKey: publicKey)
    }

    /// The identity derived from `root` for `purpose`: any 32 bytes are an X25519 secret key (age clamps them), so
    /// the root's key material is the key, and the same key file gives the same identity on any machine.
    public init(root: SecretRoot, purpose: SecretPurpose) throws(SecretsError) {
        try self.init(secretKey: root.keyMaterial(for: purpose))
    }

    /// Parses `AGE-SECRET-KEY-1...` (age writes it uppercase); the error never repeats the text.
    public init(parsing text: String) throws(SecretsError) {
        guard text == text.uppercased(), let (hrp, data) = Bech32.decode(text), hrp == Self.hrp else { throw .malformedIdentity }
        try self.init(secretKey: data)
    }

    /// The identity as age-keygen writes it, for a key file.
    public var encoded: String { Bech32.encode(hrp: Self.hrp, data: secretKey).uppercased() }

    /// A key file `age -d -i` reads: age-keygen's comment with the recipient, then the identity.
    public var keyFile: String { "# public key: \(recipient)\n\(encoded)\n" }

    public var description: String { "age identity of \(recipient)" }
}
