/// An authenticated cipher with associated data, 32-byte keys and the 16-byte tag appended to the ciphertext:
/// ChaCha20-Poly1305 (RFC 8439; age) or AES-256-GCM (NIST SP 800-38D; SOPS).
public struct AEAD: Sendable {
    public static let keyCount = 32
    public static let tagCount = 16

    public static let chaCha20Poly1305 = AEAD(name: "ChaCha20-Poly1305", nonceCounts: 12...12, algorithm: .chacha20Poly1305)
    /// GCM hashes a nonce other than 12 bytes into its counter; SOPS's 32 bytes are within what OpenSSL accepts.
    public static let aes256GCM = AEAD(name: "AES-256-GCM", nonceCounts: 12...128, algorithm: .aes256GCM)

    public let name: String
    public let nonceCounts: ClosedRange<Int>
    let algorithm: OpenSSLCipher.Algorithm

    public func seal(
        _ plaintext: some Collection<UInt8>, key: [UInt8], nonce: [UInt8], authenticating aad: some Collection<UInt8> = [UInt8]()
    ) throws(CryptoError) -> [UInt8] {
        try check(key: key, nonce: nonce)
        return try OpenSSLCipher.seal(algorithm, key: key, nonce: nonce, plaintext: Array(plaintext), authenticating: Array(aad))
    }

    /// The plaintext of `sealed` (ciphertext then tag), or `.authenticationFailed`.
    public func open(
        _ sealed: some Collection<UInt8>, key: [UInt8], nonce: [UInt8], authenticating aad: some Collection<UInt8> = [UInt8]()
    ) throws(CryptoError) -> [UInt8] {
        try check(key: key, nonce: nonce)
        return try OpenSSLCipher.open(algorithm, key: key, nonce: nonce, sealed: Array(sealed), authenticating: Array(aad))
    }

    private func check(key: [UInt8], nonce: [UInt8]) throws(CryptoError) {
        try CryptoError.check(key, is: Self.keyCount, "\(name) key")
        guard nonceCounts.contains(nonce.count) else { throw .invalidLength(what: "\(name) nonce", expected: nonceCounts.lowerBound, actual: nonce.count) }
    }
}
