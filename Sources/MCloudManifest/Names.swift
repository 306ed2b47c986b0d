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
}
