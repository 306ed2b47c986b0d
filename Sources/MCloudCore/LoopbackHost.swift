import Foundation

/// This machine's own addresses: the one place plain http is allowed to carry a credential or data, since nothing
/// leaves the host (the test beds listen there).
public enum LoopbackHost {
    /// `localhost`, `::1` (bracketed or not) and `127.0.0.0/8`.
    public static func contains(_ host: String) -> Bool {
        let bare = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.first == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Whether `url` would cross a network in clear text: `http://` to a host that is not this machine.
    public static func isCleartextAcrossANetwork(_ url: String) -> Bool {
        guard let parts = URLComponents(string: url), parts.scheme?.lowercased() == "http" else { return false }
        return !contains(parts.host ?? "")
    }
}
