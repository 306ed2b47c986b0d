/// What a cryptographic operation can fail with; never carries key material or plaintext.
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A key, nonce or tag of the wrong size for the algorithm.
    case invalidLength(what: String, expected: Int, actual: Int)
    /// A sealed box whose tag does not match: wrong key, wrong associated data or altered bytes.
    case authenticationFailed
    /// An X25519 peer key of small order, which would make the shared secret all zeros (RFC 7748, section 6.1).
    case lowOrderPoint
    /// More output than the algorithm can give (HKDF stops at 255 blocks).
    case outputTooLong(requested: Int, limit: Int)
    /// A certificate request OpenSSL must not be given; the reason names the field.
    case invalidCertificateRequest(String)
    /// OpenSSL refused a call; `operation` names it.
    case library(operation: String)

    public var description: String {
        switch self {
        case .invalidLength(let what, let expected, let actual): return "\(what) must be \(expected) bytes, not \(actual)"
        case .authenticationFailed: return "the sealed data does not authenticate (wrong key or altered bytes)"
        case .lowOrderPoint: return "the X25519 public key is of small order"
        case .outputTooLong(let requested, let limit): return "\(requested) bytes asked of a function that gives at most \(limit)"
        case .invalidCertificateRequest(let reason): return "invalid certificate request: \(reason)"
        case .library(let operation): return "OpenSSL failed in \(operation)"
        }
    }

    static func check(_ bytes: [UInt8], is count: Int, _ what: String) throws(CryptoError) {
        guard bytes.count == count else { throw .invalidLength(what: what, expected: count, actual: bytes.count) }
    }
}
