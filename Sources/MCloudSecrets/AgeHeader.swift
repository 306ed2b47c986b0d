/// The header of an age v1 file: the version line, the stanzas, and `--- MAC`, where the MAC is HMAC-SHA256 under
/// HKDF(file key, info "header") over every header byte up to and including the `---`.
struct AgeHeader: Sendable {
    static let versionLine = "age-encryption.org/v1"

    var stanzas: [AgeStanza]
    var mac: [UInt8]
    /// The bytes the MAC covers, as read (a header is never re-encoded before its MAC is checked).
    var authenticated: [UInt8]

    /// The header text before its MAC, ending with `---`.
    static func authenticatedBytes(_ stanzas: [AgeStanza]) -> [UInt8] {
        Array((versionLine + "\n" + stanzas.map(\.encoded).joined() + "---").utf8)
    }

    /// The header and where the payload starts in `file`.
    static func parse(_ file: [UInt8]) throws(SecretsError) -> (header: AgeHeader, payloadStart: Int) {
        var lines = LineReader(file)
        guard lines.next() == versionLine else { throw .ageFormat(reason: "the first line is not \(versionLine)") }
        var stanzas: [AgeStanza] = []
        while true {
            guard let line = lines.next() else { throw .ageFormat(reason: "the header has no --- line") }
            if line.hasPrefix("--- ") {
                let macStart = lines.offsetOfLastLine + 3
                guard let mac = Base64.decode(line.dropFirst(4), padded: false), mac.count == 32 else {
                    throw .ageFormat(reason: "the header MAC is not 32 bytes of Base64")
                }
                return (AgeHeader(stanzas: stanzas, mac: mac, authenticated: Array(file[..<macStart])), lines.offset)
            }
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0] == "->", parts.dropFirst().allSatisfy({ !$0.isEmpty }) else {
                throw .ageFormat(reason: "a header line is neither a stanza nor the MAC")
            }
            var body: [UInt8] = []
            while true {
                guard let bodyLine = lines.next(), bodyLine.count <= AgeArmor.columns, let bytes = Base64.decode(bodyLine, padded: false) else {
                    throw .ageFormat(reason: "a stanza body is not unpadded Base64 in lines of 64 columns")
                }
                body += bytes
                if bodyLine.count < AgeArmor.columns { break }
            }
            stanzas.append(AgeStanza(type: String(parts[1]), arguments: parts.dropFirst(2).map(String.init), body: body))
        }
    }
}

/// Lines of the header, which is text; the payload after it is binary and read by offset.
private struct LineReader {
    let bytes: [UInt8]
    private(set) var offset = 0
    private(set) var offsetOfLastLine = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func next() -> String? {
        guard offset < bytes.count, let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        offsetOfLastLine = offset
        let line = String(decoding: bytes[offset..<newline], as: UTF8.self)
        offset = newline + 1
        return line
    }
}
