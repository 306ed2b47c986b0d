import MCloudCrypto

/// The key every generated secret and every encryption nonce is derived from: HKDF-Extract over the operator's age
/// identity with a salt naming the scheme's version, so a new scheme (v2) gives unrelated secrets from the same file.
///
/// Holding the identity is holding every secret: nothing secret is stored anywhere, and any machine with the key
/// file re-derives the same passwords after any one cloud is lost (docs/connectivity.md, "Secrets").
public struct SecretRoot: Sendable, CustomStringConvertible {
    static let salt = Array("mcloud.io/secrets/v1".utf8)

    private let key: [UInt8]
    /// The operator's own recipient, which every encrypted file is also encrypted to.
    public let recipient: AgeRecipient

    public init(identity: AgeIdentity) {
        key = HKDF.extract(secret: identity.secretKey, salt: Self.salt)
        recipient = identity.recipient
    }

    /// 32 bytes of key material for `purpose`, such as the seed of a certificate authority's Ed25519 key
    /// (`MCloudCrypto.Ed25519Key(seed:)`), so the authority is the same wherever it is derived.
    public func keyMaterial(for purpose: SecretPurpose) throws(SecretsError) -> [UInt8] {
        try derive(purpose.label(.key, block: 0), count: 32)
    }

    /// `count` bytes for `label`, with `salt` binding them to content (the encryptors' nonces) or empty.
    func derive(_ label: DerivationLabel, salt: [UInt8] = [], count: Int) throws(SecretsError) -> [UInt8] {
        do {
            let pseudorandomKey = salt.isEmpty ? key : HKDF.extract(secret: key, salt: salt)
            return try HKDF.expand(pseudorandomKey: pseudorandomKey, info: label.bytes, count: count)
        } catch {
            throw .crypto(error)
        }
    }

    public var description: String { "secret root of \(recipient)" }
}
