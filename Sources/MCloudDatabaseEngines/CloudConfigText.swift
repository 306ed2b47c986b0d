/// How text goes into the `#cloud-config` document so that YAML, as cloud-init reads it, gives back exactly that
/// text and nothing more. cloud-init's PyYAML speaks YAML 1.1, which breaks lines not only at LF but also at CR,
/// NEL (U+0085), U+2028 and U+2029: a value carrying one of them inside a literal block or a comment would end it,
/// and what follows would be read as the document's own keys (a `bootcmd` run as root).
enum CloudConfigText {
    /// A mapping entry `key: value` at `indent` spaces: a literal block (`|`) when it carries `text` exactly, which
    /// keeps the scripts readable on the VM's console, else a double-quoted scalar that escapes everything but
    /// printable ASCII and so holds no line break at all.
    static func entry(_ key: String, _ text: String, indent: Int) -> [String] {
        let margin = String(repeating: " ", count: indent)
        guard fitsLiteralBlock(text) else { return [margin + key + ": " + doubleQuoted(text)] }
        let inner = margin + "  "
        return [margin + key + ": |"] + text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { $0.isEmpty ? "" : inner + $0 }
    }

    /// A plain scalar when it is a path or a word that YAML reads as that string, else double-quoted.
    static func scalar(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { plainScalars.contains($0) } && text.first != "-"
        return plain ? text : doubleQuoted(text)
    }

    /// For a comment: printable ASCII only, everything else as its escape, so the comment ends where it should.
    static func escaped(_ text: String) -> String {
        text.unicodeScalars.map(escape).joined()
    }

    static func doubleQuoted(_ text: String) -> String {
        "\"" + escaped(text) + "\""
    }

    /// A literal block gives back its lines joined by LF with one final LF (the default "clip" chomping), measured
    /// from the first line's indentation: so one final LF and no empty last line, a first line that does not begin
    /// with a space, and only characters that are neither a line break nor refused by YAML's reader.
    static func fitsLiteralBlock(_ text: String) -> Bool {
        guard text.hasSuffix("\n"), !text.hasSuffix("\n\n"), let first = text.first, first != " ", first != "\n" else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x09, 0x0A, 0x20...0x7E: true
            case 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF: false
            case 0xA0...: true
            default: false
            }
        }
    }

    private static let plainScalars = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-".unicodeScalars)

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case "\n": return "\\n"
        case "\t": return "\\t"
        case "\r": return "\\r"
        case "\u{0}": return "\\0"
        case "\u{85}": return "\\N"
        case "\u{2028}": return "\\L"
        case "\u{2029}": return "\\P"
        default: break
        }
        let value = scalar.value
        if (0x20...0x7E).contains(value) { return String(scalar) }
        let (prefix, digits) = value < 0x100 ? ("\\x", 2) : value < 0x10000 ? ("\\u", 4) : ("\\U", 8)
        let hex = String(value, radix: 16, uppercase: true)
        return prefix + String(repeating: "0", count: digits - hex.count) + hex
    }
}
