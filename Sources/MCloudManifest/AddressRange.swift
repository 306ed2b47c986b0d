import Foundation

/// An IPv4 or IPv6 address range as a catalog writes it (`203.0.113.0/24`, `2001:db8::/32`): the address's bytes
/// and the prefix length, so validation can say what a range really covers.
struct AddressRange: Equatable {
    var bytes: [UInt8]
    var prefixLength: Int

    /// Nil unless `Names.isCIDR(text)`.
    init?(_ text: String) {
        guard Names.isCIDR(text), let slash = text.lastIndex(of: "/"), let length = Int(text[text.index(after: slash)...]) else { return nil }
        let address = text[..<slash]
        if address.contains(":") {
            let halves = address.components(separatedBy: "::").map { $0.isEmpty ? [] : $0.split(separator: ":").compactMap { UInt16($0, radix: 16) } }
            let groups = halves.count == 2 ? halves[0] + Array(repeating: 0, count: 8 - halves[0].count - halves[1].count) + halves[1] : halves[0]
            bytes = groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        } else {
            bytes = address.split(separator: ".").compactMap { UInt8($0) }
        }
        prefixLength = length
    }

    /// The range with every bit past the prefix cleared: what `10.1.2.3/8` stands for.
    var network: AddressRange {
        var cleared = self
        for index in bytes.indices {
            let kept = min(8, max(0, prefixLength - index * 8))
            cleared.bytes[index] &= kept == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
        }
        return cleared
    }

    var hasHostBits: Bool { network != self }

    /// Dotted quads, or IPv6 groups in lower-case hex with the longest run of two or more zero groups as `::`.
    var description: String {
        guard bytes.count == 16 else { return bytes.map { String($0) }.joined(separator: ".") + "/\(prefixLength)" }
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        var best = (start: 0, count: 0)
        var start = 0
        for index in 0...8 {
            if index < 8, groups[index] == 0 { continue }
            if index - start > best.count { best = (start, index - start) }
            start = index + 1
        }
        let text = groups.map { String($0, radix: 16) }
        let address = best.count < 2 ? text.joined(separator: ":")
            : text[..<best.start].joined(separator: ":") + "::" + text[(best.start + best.count)...].joined(separator: ":")
        return address + "/\(prefixLength)"
    }
}
