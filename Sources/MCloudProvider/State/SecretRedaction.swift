public import MCloudCore

/// Keeps secrets out of the state. A state file is copied, pushed, backed up and read by people who must not see
/// credentials, so attributes whose name looks secret are replaced by a marker when a resource is recorded.
///
/// Redacting rather than refusing: a resource is recorded right after the provider created it, and refusing then
/// would leave a real object that the state does not know about. The key stays, so a later plan still sees that
/// the attribute exists; it compares secrets by other means (the provider's own version or digest field).
public enum SecretRedaction {
    /// What a redacted value becomes.
    public static let marker = JSONValue.string("(sensitive value)")

    /// Name parts that mark a secret once a name is lowercased and stripped of `-`, `_`, `.` and the like.
    static let secretParts: [[UInt8]] = [
        "password", "passwd", "passphrase", "secret", "token", "authorization", "credential", "privatekey", "apikey",
        "accesskey", "keydata", "tlskey", "sshkey", "clientkey",
    ].map { Array($0.utf8) }
    /// Endings of names that point at a secret instead of holding it: `secretName`, `secretKeyRef`, `tokenEnv`.
    static let referenceSuffixes: [[UInt8]] = ["name", "names", "ref", "refs", "env", "id", "path", "file"].map { Array($0.utf8) }

    /// Whether an attribute called `name` holds a secret. On bytes: a plan checks every key of every resource.
    public static func isSecret(_ name: String) -> Bool {
        var folded: [UInt8] = []
        folded.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): folded.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): folded.append(byte + 32)
            default: continue
            }
        }
        guard secretParts.contains(where: { contains(folded, $0) }) else { return false }
        return !referenceSuffixes.contains { folded.count >= $0.count && folded.suffix($0.count).elementsEqual($0) }
    }

    private static func contains(_ text: [UInt8], _ part: [UInt8]) -> Bool {
        guard text.count >= part.count else { return false }
        for start in 0...(text.count - part.count) where text[start] == part[0] {
            if text[start..<(start + part.count)].elementsEqual(part) { return true }
        }
        return false
    }

    /// Booleans, numbers and nulls carry no secret (`automountServiceAccountToken: false`), so they stay readable.
    static func canHoldSecret(_ value: JSONValue) -> Bool {
        switch value {
        case .string, .array, .object: return true
        case .null, .bool, .int, .number: return false
        }
    }

    /// `value` with the value of every secret-looking key, at any depth, replaced by `marker`.
    public static func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let pairs):
            // A name-value pair, as in a container's env list: `{name: DB_PASSWORD, value: ...}`.
            let namedSecret = pairs.first { $0.0 == "name" }?.1.stringValue.map(isSecret) ?? false
            return .object(pairs.map { key, value in
                let secret = (isSecret(key) || (namedSecret && key == "value")) && canHoldSecret(value)
                return (key, secret ? marker : redact(value))
            })
        case .array(let items): return .array(items.map(redact))
        default: return value
        }
    }
}
