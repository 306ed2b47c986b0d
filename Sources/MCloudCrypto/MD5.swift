/// MD5 (RFC 1321), only for `Content-MD5`, which S3 requires on some writes; never for security.
public enum MD5 {
    public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        OpenSSLDigest.digest(Array(bytes), .md5)
    }
}
