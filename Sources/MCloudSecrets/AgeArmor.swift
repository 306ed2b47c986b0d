import Foundation

/// age's ASCII armor (the format specification's "ASCII armor"): padded Base64 of the binary file in lines of 64
/// columns between BEGIN and END lines, the form SOPS embeds in its `enc` fields.
enum AgeArmor {
    static let begin = "-----BEGIN AGE ENCRYPTED FILE-----"
    static let end = "-----END AGE ENCRYPTED FILE-----"
    static let columns = 64

    static func armor(_ bytes: [UInt8]) -> String {
        let text = Array(Base64.encode(bytes).utf8)
        var lines: [String] = [begin]
        var start = 0
        while start < text.count {
            let stop = min(start + columns, text.count)
            lines.append(String(decoding: text[start..<stop], as: UTF8.self))
            start = stop
        }
        lines.append(end)
        return lines.joined(separator: "\n") + "\n"
    }

    static func isArmored(_ bytes: [UInt8]) -> Bool {
        String(decoding: bytes.prefix(64), as: UTF8.self).drop(while: \.isWhitespace).hasPrefix(begin)
    }

    /// The binary file; every line but the last full, as age's own reader requires.
    static func dearmor(_ bytes: [UInt8]) throws(SecretsError) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        guard lines.count >= 3, lines.first == Substring(begin), lines.last == Substring(end) else {
            throw .ageFormat(reason: "the armor lacks its BEGIN or END line")
        }
        lines = Array(lines.dropFirst().dropLast())
        guard lines.dropLast().allSatisfy({ $0.count == columns }), let last = lines.last, !last.isEmpty, last.count <= columns else {
            throw .ageFormat(reason: "an armor line is not 64 columns")
        }
        guard let binary = Base64.decode(lines.joined()) else { throw .ageFormat(reason: "the armor is not Base64") }
        return binary
    }
}
