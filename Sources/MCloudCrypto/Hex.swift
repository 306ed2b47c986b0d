/// Bytes as hexadecimal text: lower case for AWS SigV4 and digests shown to people, upper case for SOPS's MAC
/// (Go's `%X`).
public enum Hex {
    public static func lowercase(_ bytes: some Collection<UInt8>) -> String {
        text(bytes, digits: Array("0123456789abcdef".utf8))
    }

    public static func uppercase(_ bytes: some Collection<UInt8>) -> String {
        text(bytes, digits: Array("0123456789ABCDEF".utf8))
    }

    private static func text(_ bytes: some Collection<UInt8>, digits: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
