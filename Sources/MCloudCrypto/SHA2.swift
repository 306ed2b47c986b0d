/// SHA-256 and SHA-512 (FIPS 180-4).
public enum SHA2 {
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        OpenSSLDigest.digest(Array(bytes), .sha256)
    }

    /// SHA-512, which SOPS's MAC uses.
    public static func sha512(_ bytes: some Collection<UInt8>) -> [UInt8] {
        OpenSSLDigest.digest(Array(bytes), .sha512)
    }
}
