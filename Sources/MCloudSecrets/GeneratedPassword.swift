/// A password derived from the root for one purpose: 33 characters of `[A-Za-z0-9]`, at least 192 bits.
///
/// Letters and digits only, as every engine's configuration (pg_hba, Redis ACL, MariaDB, MongoDB, ClickHouse XML) and
/// a URI's userinfo take them unquoted and unescaped. `description` hides the value, so a password printed or logged
/// by mistake shows only what it is for.
public struct GeneratedPassword: Sendable, Equatable, CustomStringConvertible {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    /// ceil(192 / log2(62)) characters.
    public static let length = 33
    /// Bytes at or above this are drawn again, so each character is uniform over the 62 (248 = 4 × 62).
    static let rejectionBound = 248

    public let value: String
    public let purpose: SecretPurpose

    public init(root: SecretRoot, purpose: SecretPurpose) throws(SecretsError) {
        var characters: [UInt8] = []
        var block: UInt32 = 0
        // One block of 64 bytes almost always gives 33 characters; further blocks only when too many were drawn again.
        while characters.count < Self.length {
            for byte in try root.derive(purpose.label(block: block), count: 64) where Int(byte) < Self.rejectionBound && characters.count < Self.length {
                characters.append(Self.alphabet[Int(byte) % Self.alphabet.count])
            }
            block += 1
        }
        value = String(decoding: characters, as: UTF8.self)
        self.purpose = purpose
    }

    public var description: String { "<generated \(purpose)>" }
}
