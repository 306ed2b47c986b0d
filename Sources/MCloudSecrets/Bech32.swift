/// Bech32 (BIP 173) as age uses it: the original checksum constant, and no 90-character limit, as an age identity
/// or recipient is longer than BIP 173 allows (age's format specification).
enum Bech32 {
    private static let alphabet = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    private static let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]

    /// Lowercase Bech32 of `data` under `hrp` (given lowercase).
    static func encode(hrp: String, data: [UInt8]) -> String {
        let values = convert(data, from: 8, to: 5, pad: true) ?? []
        let checksum = self.checksum(hrp: Array(hrp.utf8), values: values)
        return hrp + "1" + String(decoding: (values + checksum).map { alphabet[Int($0)] }, as: UTF8.self)
    }

    /// The lowercase human-readable part and the bytes, or nil for mixed case, a bad character, padding or checksum.
    static func decode(_ text: String) -> (hrp: String, data: [UInt8])? {
        let bytes = Array(text.utf8)
        let hasLower = bytes.contains { $0 >= 0x61 && $0 <= 0x7A }, hasUpper = bytes.contains { $0 >= 0x41 && $0 <= 0x5A }
        guard !(hasLower && hasUpper), bytes.allSatisfy({ $0 >= 33 && $0 <= 126 }) else { return nil }
        let lower = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }
        guard let separator = lower.lastIndex(of: UInt8(ascii: "1")), separator >= 1, lower.count - separator - 1 >= 6 else { return nil }
        let hrp = Array(lower[..<separator])
        var values: [UInt8] = []
        for character in lower[(separator + 1)...] {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            values.append(UInt8(value))
        }
        guard polymod(expand(hrp) + values) == 1 else { return nil }
        guard let data = convert(Array(values.dropLast(6)), from: 5, to: 8, pad: false) else { return nil }
        return (String(decoding: hrp, as: UTF8.self), data)
    }

    private static func checksum(hrp: [UInt8], values: [UInt8]) -> [UInt8] {
        let mod = polymod(expand(hrp) + values + [0, 0, 0, 0, 0, 0]) ^ 1
        return (0..<6).map { UInt8((mod >> (5 * (5 - UInt32($0)))) & 31) }
    }

    private static func expand(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        var checksum: UInt32 = 1
        for value in values {
            let top = checksum >> 25
            checksum = (checksum & 0x1FF_FFFF) << 5 ^ UInt32(value)
            for index in 0..<5 where (top >> UInt32(index)) & 1 == 1 { checksum ^= generator[index] }
        }
        return checksum
    }

    /// Regroups bits; without padding, leftover bits must be fewer than `from` and all zero.
    private static func convert(_ data: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var accumulator = 0, bits = 0
        var output: [UInt8] = []
        let mask = (1 << to) - 1
        for value in data {
            guard Int(value) >> from == 0 else { return nil }
            accumulator = (accumulator << from) | Int(value)
            bits += from
            while bits >= to {
                bits -= to
                output.append(UInt8((accumulator >> bits) & mask))
            }
        }
        if pad {
            if bits > 0 { output.append(UInt8((accumulator << (to - bits)) & mask)) }
        } else if bits >= from || (accumulator << (to - bits)) & mask != 0 {
            return nil
        }
        return output
    }
}
