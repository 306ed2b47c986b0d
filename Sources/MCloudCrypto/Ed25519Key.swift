/// An Ed25519 signing key (RFC 8032) from a 32-byte seed, so a key derived from the secret root is the same on every
/// machine; its signatures are deterministic too.
public struct Ed25519Key: Sendable {
    public static let seedCount = 32

    let seed: [UInt8]
    public let publicKey: [UInt8]

    public init(seed: [UInt8]) throws(CryptoError) {
        try CryptoError.check(seed, is: Self.seedCount, "Ed25519 seed")
        self.seed = seed
        publicKey = try OpenSSLKey(.ed25519, privateKey: seed).publicKey()
    }

    public func sign(_ message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        try OpenSSLKey(.ed25519, privateKey: seed).sign(Array(message))
    }

    /// The public key as SubjectPublicKeyInfo PEM, the form `openssl pkeyutl -verify -pubin` reads.
    public func publicKeyPEM() throws(CryptoError) -> String {
        try OpenSSLKey(.ed25519, privateKey: seed).publicKeyPEM()
    }

    /// The private key as PKCS #8 PEM, the form a database server's TLS configuration reads.
    public func privateKeyPEM() throws(CryptoError) -> String {
        try OpenSSLKey(.ed25519, privateKey: seed).privateKeyPEM()
    }
}
