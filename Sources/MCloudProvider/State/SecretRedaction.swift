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
        return isSecret(name, folding: &folded)
    }

    /// `isSecret`, folding the name into `folded`, a buffer the caller reuses from one name to the next.
    static func isSecret(_ name: String, folding folded: inout [UInt8]) -> Bool {
        folded.removeAll(keepingCapacity: true)
        // Through a span of the name's UTF-8, not the view's iterator: 264M to 144M instructions reading a state of
        // 10,000 resources.
        let bytes = name.utf8.span
        for index in bytes.indices {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): folded.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): folded.append(byte + 32)
            default: continue
            }
        }
        guard folded.count >= shortestPart, holdsSecretPart(folded) else { return false }
        return !referenceSuffixes.contains { folded.count >= $0.count && folded.suffix($0.count).elementsEqual($0) }
    }

    private static let shortestPart = secretParts.map(\.count).min() ?? 0
    /// The parts by their first byte: each place in a name is held against the few parts that start with its byte,
    /// not all fourteen (they took 23% of the instructions reading a state of 10,000 resources).
    private static let partsByFirstByte: [[[UInt8]]] = (0...255).map { byte in secretParts.filter { $0.first == UInt8(byte) } }

    private static func holdsSecretPart(_ text: [UInt8]) -> Bool {
        for start in 0...(text.count - shortestPart) {
            for part in partsByFirstByte[Int(text[start])] where text.count - start >= part.count {
                if text[start..<(start + part.count)].elementsEqual(part) { return true }
            }
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

    /// `value` with the value of every secret-looking key, at any depth, replaced by `marker`; `value` itself, not a
    /// copy, when that changes nothing (a state's attributes, read back, were redacted when recorded).
    public static func redact(_ value: JSONValue) -> JSONValue {
        var folded: [UInt8] = []
        return isRedacted(value, &folded) ? value : redact(value, &folded)
    }

    private static func redact(_ value: JSONValue, _ folded: inout [UInt8]) -> JSONValue {
        switch value {
        case .object(let pairs):
            let namedSecret = isNamedSecret(pairs, &folded)
            return .object(pairs.map { key, value in
                (key, isSecret(key, value, named: namedSecret, &folded) ? marker : redact(value, &folded))
            })
        case .array(let items): return .array(items.map { redact($0, &folded) })
        default: return value
        }
    }

    /// Whether `redact(value)` is `value`: every secret-looking key's value is the marker already. `folded` is
    /// `isSecret`'s buffer.
    static func isRedacted(_ value: JSONValue, _ folded: inout [UInt8]) -> Bool {
        switch value {
        case .object(let pairs):
            let namedSecret = isNamedSecret(pairs, &folded)
            for (key, value) in pairs {
                if isSecret(key, value, named: namedSecret, &folded) {
                    guard value == marker else { return false }
                } else if !isRedacted(value, &folded) {
                    return false
                }
            }
            return true
        case .array(let items):
            for item in items where !isRedacted(item, &folded) { return false }
            return true
        default:
            return true
        }
    }

    /// A name-value pair, as in a container's env list: `{name: DB_PASSWORD, value: ...}`.
    private static func isNamedSecret(_ pairs: [(String, JSONValue)], _ folded: inout [UInt8]) -> Bool {
        guard let name = pairs.first(where: { $0.0 == "name" })?.1.stringValue else { return false }
        return isSecret(name, folding: &folded)
    }

    private static func isSecret(_ key: String, _ value: JSONValue, named namedSecret: Bool, _ folded: inout [UInt8]) -> Bool {
        canHoldSecret(value) && (isSecret(key, folding: &folded) || (namedSecret && key == "value"))
    }
}
