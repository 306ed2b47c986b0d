/// Names and label values Kubernetes accepts, made from mcloud's names (DNS labels of at most 63 characters).
enum KubernetesName {
    static let maxLength = 63

    /// `text` shortened to 63 characters when longer: the first 54, then `-` and a hash of the whole text, so two
    /// long names that share a beginning stay apart and the same name always shortens the same way.
    static func fit(_ text: String) -> String {
        guard text.utf8.count > maxLength else { return text }
        var head = Substring(text).utf8.prefix(maxLength - 9)
        while let last = head.last, !isAlphanumeric(last) { head = head.dropLast() }
        return String(decoding: head, as: UTF8.self) + "-" + StableHash.hex(text, digits: 8)
    }

    /// A Service's name is also its DNS name and must start with a letter (RFC 1035); a workload may start with a digit.
    static func service(_ workload: String) -> String {
        guard let first = workload.utf8.first, (0x30...0x39).contains(first) else { return workload }
        return fit("svc-" + workload)
    }

    /// A label key Kubernetes accepts: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters.
    static func isLabelKey(_ key: String) -> Bool {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let name = parts.last, isLabelValue(String(name)), !name.isEmpty else { return false }
        guard parts.count == 2 else { return true }
        let prefix = parts[0]
        return !prefix.isEmpty && prefix.utf8.count <= 253 && prefix.split(separator: ".", omittingEmptySubsequences: false).allSatisfy {
            $0.utf8.count <= maxLength && $0.utf8.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") }
                && $0.utf8.first.map(isLowerAlphanumeric) == true && $0.utf8.last.map(isLowerAlphanumeric) == true
        }
    }

    /// A label value Kubernetes accepts: empty, or at most 63 of `[A-Za-z0-9._-]`, starting and ending alphanumeric.
    static func isLabelValue(_ value: String) -> Bool {
        let bytes = value.utf8
        guard let first = bytes.first, let last = bytes.last else { return true }
        return bytes.count <= maxLength && isAlphanumeric(first) && isAlphanumeric(last)
            && bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isLowerAlphanumeric(byte) || (0x41...0x5A).contains(byte)
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
