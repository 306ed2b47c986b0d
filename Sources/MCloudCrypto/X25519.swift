/// X25519 Diffie-Hellman (RFC 7748) on 32-byte keys.
public enum X25519 {
    public static let keyCount = 32

    public static func publicKey(privateKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CryptoError.check(privateKey, is: keyCount, "X25519 private key")
        return try OpenSSLKey(.x25519, privateKey: privateKey).publicKey()
    }

    /// The shared secret; a peer key of small order is refused rather than giving all zeros.
    public static func sharedSecret(privateKey: [UInt8], publicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CryptoError.check(privateKey, is: keyCount, "X25519 private key")
        try CryptoError.check(publicKey, is: keyCount, "X25519 public key")
        let secret = try OpenSSLKey(.x25519, privateKey: privateKey).sharedSecret(with: OpenSSLKey(.x25519, publicKey: publicKey))
        guard secret.contains(where: { $0 != 0 }) else { throw .lowOrderPoint }
        return secret
    }
}
