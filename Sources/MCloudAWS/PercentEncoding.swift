import Foundation

/// RFC 3986 percent-encoding as AWS signs it: only `A-Z a-z 0-9 - _ . ~` stay as they are, and hex digits are upper case.
enum PercentEncoding {
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Encodes every byte outside the unreserved set; `keepSlash` leaves `/` for paths.
    static func encode(_ text: some StringProtocol, keepSlash: Bool = false) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` sequences; a `%` not followed by two hex digits is kept as it is. `+` stays a plus.
    static func decode(_ text: some StringProtocol) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `k=v&k2=v2` with both sides encoded, in the order given; for query strings.
    static func query(_ parameters: [(String, String)]) -> String {
        parameters.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }

    /// `application/x-www-form-urlencoded` as the AWS SDKs send Query and EC2 bodies: a space becomes `+`.
    /// Servers that re-encode the parsed form to check a signature (moto) rebuild exactly these bytes.
    static func form(_ parameters: [(String, String)]) -> String {
        parameters.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&")
    }

    private static func formEncode(_ text: String) -> String {
        encode(text).replacingOccurrences(of: "%20", with: "+")
    }
}
