import Foundation

/// Base64 with the standard alphabet: padded (age's armor, SOPS's values) or without padding (age's header).
enum Base64 {
    static func encode(_ bytes: [UInt8], padded: Bool = true) -> String {
        let text = Data(bytes).base64EncodedString()
        return padded ? text : String(text.prefix { $0 != "=" })
    }

    /// The bytes, or nil; unpadded input is refused when padded, and the reverse, as age and SOPS write one form.
    static func decode(_ text: some StringProtocol, padded: Bool = true) -> [UInt8]? {
        guard !text.contains("\n"), !text.contains("\r") else { return nil }
        if !padded {
            guard !text.contains("=") else { return nil }
            let padding = String(repeating: "=", count: (4 - text.count % 4) % 4)
            return Data(base64Encoded: String(text) + padding).map { [UInt8]($0) }
        }
        guard text.count % 4 == 0 else { return nil }
        return Data(base64Encoded: String(text)).map { [UInt8]($0) }
    }
}
