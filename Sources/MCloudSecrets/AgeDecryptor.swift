import MCloudCrypto

/// Reads age v1 files, armored or binary, with an X25519 identity; stanzas of other types are skipped, as age does
/// for types it does not hold an identity for.
public struct AgeDecryptor: Sendable {
    let identity: AgeIdentity

    public init(identity: AgeIdentity) {
        self.identity = identity
    }

    public func decrypt(_ file: some Collection<UInt8>) throws(SecretsError) -> [UInt8] {
        var bytes = Array(file)
        if AgeArmor.isArmored(bytes) { bytes = try AgeArmor.dearmor(bytes) }
        let (header, payloadStart) = try AgeHeader.parse(bytes)
        var fileKey: [UInt8]?
        for stanza in header.stanzas where fileKey == nil {
            fileKey = try AgeX25519Stanza.unwrap(stanza, with: identity)
        }
        guard let fileKey else { throw .noMatchingIdentity }
        // A header altered after the file key was wrapped (a stanza added or removed) fails here.
        guard HMAC.sha256(key: try headerKey(fileKey), message: header.authenticated) == header.mac else {
            throw .ageFormat(reason: "the header MAC does not match")
        }
        return try AgePayload.open(bytes[payloadStart...], fileKey: fileKey)
    }
}
