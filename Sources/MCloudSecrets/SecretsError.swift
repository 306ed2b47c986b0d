public import MCloudCrypto

/// What reading a key, deriving, encrypting or decrypting can fail with. A case names the file or the part of the
/// format at fault and never carries a secret: not the identity's text, not a plaintext, not a derived value.
public enum SecretsError: Error, Equatable, Sendable, CustomStringConvertible {
    case keyFileMissing(path: String)
    case keyFileUnreadable(path: String)
    /// The file does not hold exactly one well-formed age identity; `reason` says which rule it breaks, by line.
    case keyFileMalformed(path: String, reason: String)
    case malformedIdentity
    case malformedRecipient(String)
    /// An age file this module cannot read; `reason` names the part (header, stanza, MAC, payload, armor).
    case ageFormat(reason: String)
    /// None of the file's recipient stanzas opens with the identity given.
    case noMatchingIdentity
    /// A SOPS document this module cannot read or that fails its MAC; `reason` names the key or field.
    case sopsFormat(reason: String)
    case invalidInput(reason: String)
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .keyFileMissing(let path): return "no age key file at \(path) (set MCLOUD_AGE_KEY_FILE or SOPS_AGE_KEY_FILE, or create it with age-keygen)"
        case .keyFileUnreadable(let path): return "cannot read the age key file \(path)"
        case .keyFileMalformed(let path, let reason): return "the age key file \(path) \(reason)"
        case .malformedIdentity: return "not an age identity (AGE-SECRET-KEY-1 followed by bech32)"
        case .malformedRecipient(let text): return "not an age X25519 recipient (age1 followed by bech32): \(text)"
        case .ageFormat(let reason): return "not a readable age file: \(reason)"
        case .noMatchingIdentity: return "the age file is not encrypted to this identity"
        case .sopsFormat(let reason): return "not a readable SOPS document: \(reason)"
        case .invalidInput(let reason): return reason
        case .crypto(let error): return error.description
        }
    }
}
