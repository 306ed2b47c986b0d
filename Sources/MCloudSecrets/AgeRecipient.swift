import MCloudCrypto

/// An age X25519 recipient, `age1...`: the public key files are encrypted to. Public, so printing it is safe.
public struct AgeRecipient: Sendable, Hashable, Comparable, CustomStringConvertible {
    static let hrp = "age"

    public let publicKey: [UInt8]

    public init(publicKey: [UInt8]) throws(SecretsError) {
        guard publicKey.count == X25519.keyCount else { throw .malformedRecipient("a public key of \(publicKey.count) bytes") }
        self.publicKey = publicKey
    }

    /// Parses `age1...`; age writes recipients in lowercase only, so uppercase is refused as age refuses it. The error
    /// repeats the text only when it starts as a recipient does: an identity given by mistake is not echoed.
    public init(parsing text: String) throws(SecretsError) {
        guard text == text.lowercased(), let (hrp, data) = Bech32.decode(text), hrp == Self.hrp, data.count == X25519.keyCount else {
            throw .malformedRecipient(text.lowercased().hasPrefix("age1") ? text : "(a value not starting with age1, not shown)")
        }
        publicKey = data
    }

    public var encoded: String { Bech32.encode(hrp: Self.hrp, data: publicKey) }
    public var description: String { encoded }

    public static func < (lhs: AgeRecipient, rhs: AgeRecipient) -> Bool { lhs.encoded < rhs.encoded }
}
