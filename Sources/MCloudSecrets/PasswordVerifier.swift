import MCloudCrypto

/// What a database engine stores in place of a client's password, so that a database VM's user data carries these
/// and never the password itself: each is a one-way function of the password, checked by the engine at login.
public enum PasswordVerifier {
    public enum Scheme: String, Sendable, CaseIterable {
        /// PostgreSQL's `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (RFC 5802, RFC 7677).
        case scramSHA256 = "scram-sha-256"
        /// A Redis ACL password as its hash: `#` and the SHA-256 in lowercase hex.
        case redisSHA256 = "redis-sha256"
        /// MariaDB's and MySQL's `mysql_native_password`: `*` and SHA1(SHA1(password)) in uppercase hex.
        case mysqlNative = "mysql-native-password"
        /// ClickHouse's `password_sha256_hex`: the SHA-256 in lowercase hex.
        case sha256Hex = "sha256-hex"
    }

    /// PostgreSQL's default (`scram_iterations`), which its own `ALTER ROLE ... PASSWORD` uses.
    public static let scramIterations = 4096

    /// The verifier of `password` under `scheme`; `salt` is used by SCRAM only.
    public static func verifier(_ scheme: Scheme, password: String, salt: [UInt8]) throws(SecretsError) -> String {
        let bytes = Array(password.utf8)
        switch scheme {
        case .scramSHA256:
            return try scram(password: bytes, salt: salt, iterations: scramIterations)
        case .redisSHA256:
            return "#" + hex(SHA2.sha256(bytes))
        case .mysqlNative:
            return "*" + hex(SHA1.hash(SHA1.hash(bytes))).uppercased()
        case .sha256Hex:
            return hex(SHA2.sha256(bytes))
        }
    }

    /// RFC 5802, section 3: SaltedPassword = Hi(password, salt, i); StoredKey = H(HMAC(SaltedPassword, "Client Key"));
    /// ServerKey = HMAC(SaltedPassword, "Server Key"). The password is used as it is: SASLprep leaves letters and
    /// digits, all a `GeneratedPassword` holds, unchanged.
    static func scram(password: [UInt8], salt: [UInt8], iterations: Int) throws(SecretsError) -> String {
        let salted: [UInt8]
        do {
            salted = try PBKDF2.sha256(password: password, salt: salt, iterations: iterations, count: 32)
        } catch {
            throw .crypto(error)
        }
        let storedKey = SHA2.sha256(HMAC.sha256(key: salted, message: Array("Client Key".utf8)))
        let serverKey = HMAC.sha256(key: salted, message: Array("Server Key".utf8))
        return "SCRAM-SHA-256$\(iterations):\(Base64.encode(salt))$\(Base64.encode(storedKey)):\(Base64.encode(serverKey))"
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}
