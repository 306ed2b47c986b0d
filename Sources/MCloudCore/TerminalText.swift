/// Text from outside mcloud (a server's error message, a bucket key) made safe to print on a terminal: an escape
/// sequence in an error answer could otherwise recolour, move the cursor, rewrite the title or hide what follows,
/// and a line break could forge a line of mcloud's own output.
public enum TerminalText {
    /// `text` with every control character (C0, DEL, C1, line and paragraph separators) and every bidirectional
    /// override written as a visible `\u{…}` escape; all other text is kept as it is.
    public static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: return true
        // Embeddings, overrides and isolates reorder what follows them on screen.
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
