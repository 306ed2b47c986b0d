import MCloudCrypto

/// Writes age v1 files to X25519 recipients, deterministically: the file key, each ephemeral key and the payload
/// nonce are derived from the root and a digest of the recipients and the plaintext, so the same inputs give the
/// same bytes (rendered trees do not change when nothing did). What that reveals: that two files with the same
/// recipients hold the same plaintext, and nothing else (docs/connectivity.md, "Secrets").
public struct AgeEncryptor: Sendable {
    static let fileKeyCount = 16

    let root: SecretRoot

    public init(root: SecretRoot) {
        self.root = root
    }

    /// The file, armored (text, as SOPS embeds it) or binary; recipients are sorted and deduplicated, and must not be empty.
    public func encrypt(_ plaintext: some Collection<UInt8>, to recipients: [AgeRecipient], armored: Bool = true) throws(SecretsError) -> [UInt8] {
        let plaintext = Array(plaintext)
        let recipients = Array(Set(recipients)).sorted()
        guard !recipients.isEmpty else { throw .invalidInput(reason: "an age file needs at least one recipient") }
        let content = SHA2.sha256(Array(recipients.map(\.encoded).joined(separator: "\n").utf8) + [0] + plaintext)
        let fileKey = try root.derive(DerivationLabel(.age, ["file key"]), salt: content, count: Self.fileKeyCount)
        var stanzas: [AgeStanza] = []
        for recipient in recipients {
            let ephemeral = try root.derive(DerivationLabel(.age, ["ephemeral", recipient.encoded]), salt: content, count: X25519.keyCount)
            stanzas.append(try AgeX25519Stanza.wrap(fileKey: fileKey, to: recipient, ephemeralSecret: ephemeral))
        }
        let authenticated = AgeHeader.authenticatedBytes(stanzas)
        let mac = HMAC.sha256(key: try headerKey(fileKey), message: authenticated)
        let nonce = try root.derive(DerivationLabel(.age, ["payload nonce"]), salt: content, count: AgePayload.nonceCount)
        let file = authenticated + Array((" " + Base64.encode(mac, padded: false) + "\n").utf8) + (try AgePayload.seal(plaintext, fileKey: fileKey, nonce: nonce))
        return armored ? Array(AgeArmor.armor(file).utf8) : file
    }
}

/// HKDF(file key, info "header"), the header MAC's key.
func headerKey(_ fileKey: [UInt8]) throws(SecretsError) -> [UInt8] {
    do {
        return try HKDF.sha256(secret: fileKey, salt: [UInt8](), info: Array("header".utf8), count: 32)
    } catch {
        throw .crypto(error)
    }
}
