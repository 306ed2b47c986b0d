import Foundation

/// The shapes of names, tags and codes the manifest format allows.
enum Names {
    /// Why `value` is not a DNS label (`[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters), or nil when it is one.
    static func dnsLabelProblem(_ value: String) -> String? {
        if value.isEmpty { return "it is empty" }
        if value.utf8.count > 63 { return "it is \(value.utf8.count) characters long; at most 63 are allowed" }
        let allowed = value.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        if !allowed {
            if value.lowercased() != value, dnsLabelProblem(value.lowercased()) == nil {
                return "use lower case (\"\(value.lowercased())\")"
            }
            return "use only lower-case letters, digits and '-'"
        }
        if value.hasPrefix("-") || value.hasSuffix("-") { return "it must start and end with a letter or digit" }
        return nil
    }

    /// A Kubernetes object name such as a Secret's (RFC 1123 subdomain): DNS labels joined by dots, at most 253.
    static func isSubdomain(_ value: String) -> Bool {
        value.utf8.count <= 253 && !value.isEmpty
            && value.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { dnsLabelProblem(String($0)) == nil }
    }

    /// A key of a Secret's data: `[-._a-zA-Z0-9]+`, at most 253 characters.
    static func isSecretKey(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 253 && value != "." && value != ".."
            && value.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-._".unicodeScalars.contains($0) }
    }

    static func isTag(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, ("A"..."Z").contains(first), value.count <= 32 else { return false }
        return value.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }

    static func isCurrencyCode(_ value: String) -> Bool {
        value.unicodeScalars.count == 3 && value.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) }
    }

    /// An environment variable name as POSIX shells and Kubernetes accept it.
    static func isEnvironmentName(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return value.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
    }

    /// An IPv4 or IPv6 address range in CIDR notation: `203.0.113.0/24`, `2001:db8::/32`.
    static func isCIDR(_ value: String) -> Bool {
        let parts = value.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let length = Int(parts[1]), String(length) == parts[1] else { return false }
        let address = String(parts[0])
        if address.contains(":") { return (0...128).contains(length) && isIPv6(address) }
        let octets = address.split(separator: ".", omittingEmptySubsequences: false)
        return (0...32).contains(length) && octets.count == 4
            && octets.allSatisfy { octet in Int(octet).map { (0...255).contains($0) && String($0) == octet } ?? false }
    }

    private static func isIPv6(_ address: String) -> Bool {
        let halves = address.components(separatedBy: "::")
        guard halves.count <= 2 else { return false }
        let groups = halves.map { $0.isEmpty ? [] : $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
        let count = groups.reduce(0) { $0 + $1.count }
        guard halves.count == 2 ? count < 8 : count == 8 else { return false }
        return groups.joined().allSatisfy { group in
            (1...4).contains(group.count) && group.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) || ("A"..."F").contains($0) }
        }
    }
}
