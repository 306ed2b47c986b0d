/// HKDF-SHA256 (RFC 5869), written over `HMAC` as the RFC gives it: two short loops are easier to check against the
/// RFC than OpenSSL's parameter-based KDF interface.
public enum HKDF {
    /// The largest output: 255 blocks of 32 bytes.
    public static let maximumCount = 255 * 32

    public static func sha256(
        secret: some Collection<UInt8>, salt: some Collection<UInt8>, info: some Collection<UInt8>, count: Int
    ) throws(CryptoError) -> [UInt8] {
        try expand(pseudorandomKey: extract(secret: secret, salt: salt), info: info, count: count)
    }

    /// HKDF-Extract; an empty salt stands for 32 zero bytes (RFC 5869, section 2.2).
    public static func extract(secret: some Collection<UInt8>, salt: some Collection<UInt8>) -> [UInt8] {
        let salt = salt.isEmpty ? [UInt8](repeating: 0, count: 32) : Array(salt)
        return HMAC.sha256(key: salt, message: secret)
    }

    public static func expand(pseudorandomKey: [UInt8], info: some Collection<UInt8>, count: Int) throws(CryptoError) -> [UInt8] {
        guard count <= maximumCount else { throw .outputTooLong(requested: count, limit: maximumCount) }
        let info = Array(info)
        var output: [UInt8] = []
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < count {
            block = HMAC.sha256(key: pseudorandomKey, message: block + info + [counter])
            output += block
            counter &+= 1
        }
        return Array(output.prefix(count))
    }
}
