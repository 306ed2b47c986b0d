/// SHA-1 (FIPS 180-4), for the one format that still needs it: MariaDB's and MySQL's `mysql_native_password` hash,
/// which the server compares with what the client sends. Nothing of mcloud's own relies on its collision resistance.
public enum SHA1 {
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        OpenSSLDigest.digest(Array(bytes), .sha1)
    }
}
