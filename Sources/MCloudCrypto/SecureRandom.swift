/// Bytes from OpenSSL's CSPRNG, for keys that are not derived.
public enum SecureRandom {
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        try OpenSSLDigest.random(count)
    }
}
