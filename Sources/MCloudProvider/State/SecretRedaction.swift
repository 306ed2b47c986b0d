public import MCloudCore

/// Keeps secrets out of the state. A state file is copied, pushed, backed up and read by people who must not see
/// credentials, so attributes whose name looks secret are replaced by a marker when a resource is recorded.
///
/// Redacting rather than refusing: a resource is recorded right after the provider created it, and refusing then
/// would leave a real object that the state does not know about. The key stays, so a later plan still sees that
/// the attribute exists; it compares secrets by other means (the provider's own version or digest field).
public enum SecretRedaction {
    /// What a redacted value becomes.
    public static let marker = JSONValue.string(markerText)
    public static let markerText = "(sensitive value)"

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
        // Through a span of the name's UTF-8, not the view's iterator, which cost nearly twice the instructions
        // (docs/benchmarks.md, engine-plan). Folding never lengthens a name, so most keys (`name`, `spec`) end here.
        let bytes = name.utf8.span
        guard bytes.count >= PartMatcher.shortestPart, PartMatcher.shared.holdsPart(bytes) else { return false }
        // A part found, which few names hold: only then the folded name, for its ending.
        folded.removeAll(keepingCapacity: true)
        for index in bytes.indices where PartMatcher.symbol(bytes[index]) >= 0 { folded.append(bytes[index] | 0x20) }
        return !referenceSuffixes.contains { folded.count >= $0.count && folded.suffix($0.count).elementsEqual($0) }
    }

    /// Finds any of `secretParts` in a name in one pass over its bytes, folding as it goes: an automaton of the
    /// parts (Aho-Corasick) as a table of states by letter or digit, since a check of every place against every part
    /// was a large share of reading a big state (docs/benchmarks.md, engine-plan).
    private struct PartMatcher {
        static let shared = PartMatcher(secretParts)
        static let shortestPart = secretParts.map(\.count).min() ?? 0
        /// Letters and digits, the only bytes a folded name keeps: `a`-`z` as 0-25 (either case), digits as 26-35.
        static let symbols = 36

        /// `next[state * symbols + symbol]`: the state after reading `symbol`, which is the longest end of what was
        /// read that begins some part.
        private var next: [Int16] = []
        /// Whether a state has read a whole part at its end.
        private var found: [Bool] = []

        @inline(__always)
        static func symbol(_ byte: UInt8) -> Int {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a"))
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "0")...UInt8(ascii: "9"): 26 + Int(byte - UInt8(ascii: "0"))
            default: -1
            }
        }

        private init(_ parts: [[UInt8]]) {
            // The trie of the parts, then each state's missing moves filled from its fallback's, breadth first.
            var child: [[Int]] = [Array(repeating: -1, count: Self.symbols)]
            found = [false]
            for part in parts {
                var state = 0
                for byte in part {
                    let symbol = Self.symbol(byte)
                    if child[state][symbol] < 0 {
                        child[state][symbol] = child.count
                        child.append(Array(repeating: -1, count: Self.symbols))
                        found.append(false)
                    }
                    state = child[state][symbol]
                }
                found[state] = true
            }
            var fallback = [Int](repeating: 0, count: child.count)
            var queue: [Int] = []
            for symbol in 0..<Self.symbols {
                if child[0][symbol] < 0 { child[0][symbol] = 0 } else { queue.append(child[0][symbol]) }
            }
            var head = 0
            while head < queue.count {
                let state = queue[head]
                head += 1
                found[state] = found[state] || found[fallback[state]]
                for symbol in 0..<Self.symbols {
                    let target = child[state][symbol]
                    if target < 0 {
                        child[state][symbol] = child[fallback[state]][symbol]
                    } else {
                        fallback[target] = child[fallback[state]][symbol]
                        queue.append(target)
                    }
                }
            }
            next = child.flatMap { $0.map { Int16($0) } }
        }

        func holdsPart(_ bytes: Span<UInt8>) -> Bool {
            let next = next.span, found = found.span
            var state = 0
            for index in bytes.indices {
                let symbol = Self.symbol(bytes[index])
                guard symbol >= 0 else { continue }
                state = Int(next[state * Self.symbols + symbol])
                if found[state] { return true }
            }
            return false
        }
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
        canHoldSecret(value) && !isSecretReference(key, value) && (isSecret(key, folding: &folded) || (namedSecret && key == "value"))
    }

    /// A pod's `secret` volume or projection names a Secret and holds none of it (`{secretName, items, defaultMode}`):
    /// redacted, the state would differ from the cluster on every field-level comparison of its Deployment.
    private static func isSecretReference(_ key: String, _ value: JSONValue) -> Bool {
        guard key == "secret", case .object(let pairs) = value else { return false }
        return pairs.contains { $0.0 == "secretName" || $0.0 == "name" }
    }
}
