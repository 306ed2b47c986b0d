/// One value as SOPS stores it: `ENC[AES256_GCM,data:<b64>,iv:<b64>,tag:<b64>,type:<type>]`, padded Base64, the
/// AES-256-GCM tag apart from the ciphertext (sops's aes/cipher.go). An empty string is stored empty, unencrypted, as
/// SOPS does.
struct SopsValue: Sendable, Equatable {
    var ciphertext: [UInt8]
    var iv: [UInt8]
    var tag: [UInt8]
    var type: String

    var encoded: String {
        "ENC[AES256_GCM,data:\(Base64.encode(ciphertext)),iv:\(Base64.encode(iv)),tag:\(Base64.encode(tag)),type:\(type)]"
    }

    init(ciphertext: [UInt8], iv: [UInt8], tag: [UInt8], type: String) {
        self.ciphertext = ciphertext
        self.iv = iv
        self.tag = tag
        self.type = type
    }

    init(parsing text: String, at path: String) throws(SecretsError) {
        let prefix = "ENC[AES256_GCM,", suffix = "]"
        guard text.hasPrefix(prefix), text.hasSuffix(suffix) else { throw .sopsFormat(reason: "\(path) is not an ENC[AES256_GCM,...] value") }
        var fields: [String: String] = [:]
        for field in text.dropFirst(prefix.count).dropLast(suffix.count).split(separator: ",") {
            guard let colon = field.firstIndex(of: ":") else { throw .sopsFormat(reason: "\(path) has a field without a name") }
            fields[String(field[..<colon])] = String(field[field.index(after: colon)...])
        }
        guard let data = fields["data"].flatMap({ Base64.decode($0) }), let iv = fields["iv"].flatMap({ Base64.decode($0) }),
            let tag = fields["tag"].flatMap({ Base64.decode($0) }), let type = fields["type"]
        else { throw .sopsFormat(reason: "\(path) lacks data, iv, tag or type in Base64") }
        self.init(ciphertext: data, iv: iv, tag: tag, type: type)
    }
}
