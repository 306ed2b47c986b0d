/// FNV-1a over UTF-8: the same value on every run and every machine, unlike `Hasher`, so names and annotations
/// derived from it keep rendered trees byte-identical.
enum StableHash {
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// `digits` lower-case hex digits of the hash, zero-padded.
    static func hex(_ text: String, digits: Int) -> String {
        let full = String(fnv1a(text), radix: 16)
        return String((String(repeating: "0", count: 16 - full.count) + full).prefix(digits))
    }
}
