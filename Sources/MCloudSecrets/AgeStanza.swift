/// One recipient stanza of an age header: `-> TYPE ARG...`, then the body in unpadded Base64, 64 columns a line, the
/// last line always shorter (empty when the body fills whole lines).
struct AgeStanza: Sendable, Equatable {
    var type: String
    var arguments: [String]
    var body: [UInt8]

    var encoded: String {
        var text = (["->", type] + arguments).joined(separator: " ") + "\n"
        let body = Array(Base64.encode(body, padded: false).utf8)
        var start = 0
        repeat {
            let stop = min(start + AgeArmor.columns, body.count)
            text += String(decoding: body[start..<stop], as: UTF8.self) + "\n"
            start += AgeArmor.columns
        } while start <= body.count
        return text
    }
}
