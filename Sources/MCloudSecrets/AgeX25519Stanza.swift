import MCloudCrypto

/// The X25519 recipient type of age: the file key sealed with ChaCha20-Poly1305 (zero nonce) under
/// HKDF(shared secret, salt: ephemeral share || recipient, info "age-encryption.org/v1/X25519").
enum AgeX25519Stanza {
    static let type = "X25519"
    static let info = Array("age-encryption.org/v1/X25519".utf8)
    static let zeroNonce = [UInt8](repeating: 0, count: AEAD.chaCha20Poly1305.nonceCounts.lowerBound)

    static func wrap(fileKey: [UInt8], to recipient: AgeRecipient, ephemeralSecret: [UInt8]) throws(SecretsError) -> AgeStanza {
        do {
            let share = try X25519.publicKey(privateKey: ephemeralSecret)
            let shared = try X25519.sharedSecret(privateKey: ephemeralSecret, publicKey: recipient.publicKey)
            let wrapKey = try HKDF.sha256(secret: shared, salt: share + recipient.publicKey, info: info, count: 32)
            let body = try AEAD.chaCha20Poly1305.seal(fileKey, key: wrapKey, nonce: zeroNonce)
            return AgeStanza(type: type, arguments: [Base64.encode(share, padded: false)], body: body)
        } catch {
            throw .crypto(error)
        }
    }

    /// The file key, or nil when the stanza is not for this identity.
    static func unwrap(_ stanza: AgeStanza, with identity: AgeIdentity) throws(SecretsError) -> [UInt8]? {
        guard stanza.type == type else { return nil }
        guard stanza.arguments.count == 1, let share = Base64.decode(stanza.arguments[0], padded: false), share.count == 32, stanza.body.count == 32 else {
            throw .ageFormat(reason: "an X25519 stanza is not one 32-byte share and a 32-byte body")
        }
        do {
            let shared = try X25519.sharedSecret(privateKey: identity.secretKey, publicKey: share)
            let wrapKey = try HKDF.sha256(secret: shared, salt: share + identity.recipient.publicKey, info: info, count: 32)
            return try? AEAD.chaCha20Poly1305.open(stanza.body, key: wrapKey, nonce: zeroNonce)
        } catch {
            throw .crypto(error)
        }
    }
}
