/// PBKDF2-HMAC-SHA256 (RFC 8018, section 5.2), which SCRAM-SHA-256 calls `Hi` (RFC 5802, 7677): written over `HMAC`
/// as the RFC gives it, like `HKDF`, since its one caller derives a single block per password.
public enum PBKDF2 {
    public static func sha256(password: some Collection<UInt8>, salt: some Collection<UInt8>, iterations: Int, count: Int) throws(CryptoError) -> [UInt8] {
        guard iterations > 0 else { throw .invalidLength(what: "PBKDF2 iteration count", expected: 1, actual: iterations) }
        let password = Array(password)
        let salt = Array(salt)
        var output: [UInt8] = []
        var index: UInt32 = 1
        while output.count < count {
            var block = HMAC.sha256(key: password, message: salt + [UInt8(index >> 24), UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF)])
            var sum = block
            for _ in 1..<iterations {
                block = HMAC.sha256(key: password, message: block)
                for position in sum.indices { sum[position] ^= block[position] }
            }
            output += sum
            index += 1
        }
        return Array(output.prefix(count))
    }
}
