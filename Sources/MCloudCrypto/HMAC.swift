/// HMAC-SHA256 (RFC 2104).
public enum HMAC {
    public static func sha256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        OpenSSLDigest.hmac(key: Array(key), message: Array(message), .sha256)
    }
}
