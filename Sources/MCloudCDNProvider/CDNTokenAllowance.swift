import Foundation
import MCloudCore

/// Whether a catalog's `endpoints.cdn` may send the token in the variable `tokenEnv` names to `url`. The catalog
/// comes through merge requests, so the operator decides which variables are CDN tokens (`MCLOUD_ALLOWED_TOKEN_ENV`:
/// `NAME`, or `NAME@host` to pin the host the token may go to); variables that hold other credentials are never
/// sent, and never in clear text except to a loopback address (the test beds).
struct CDNTokenAllowance {
    static let variable = "MCLOUD_ALLOWED_TOKEN_ENV"
    /// Prefixes and names of variables that carry mcloud's own cloud credentials or the shell's settings.
    static let reservedPrefixes = ["AWS_", "OS_", "KUBE"]
    static let reservedNames: Set<String> = ["HOME", "PATH"]

    /// Each allowed variable with the host it is pinned to, if any.
    private let allowed: [String: String?]

    init(environment: [String: String]) {
        var allowed: [String: String?] = [:]
        for entry in (environment[Self.variable] ?? "").split(whereSeparator: { $0 == "," || $0.isWhitespace }) {
            let parts = entry.split(separator: "@", maxSplits: 1).map(String.init)
            guard let name = parts.first else { continue }
            // updateValue, not the subscript: assigning a nil pin through the subscript would remove the name.
            allowed.updateValue(parts.count == 2 ? parts[1].lowercased() : nil, forKey: name)
        }
        self.allowed = allowed
    }

    /// Why the token must not be sent, or nil when it may.
    func refusal(tokenEnv name: String, url: String) -> String? {
        if Self.reservedNames.contains(name) || Self.reservedPrefixes.contains(where: name.hasPrefix) {
            return "endpoints.cdn.tokenEnv names \(name), which holds no CDN token: mcloud never sends AWS_*, OS_*, KUBE*, HOME or PATH to a CDN API"
        }
        guard let pinned = allowed[name] else {
            return "endpoints.cdn.tokenEnv names \(name), which is not listed in \(Self.variable); mcloud sends a variable the catalog names "
                + "only when the operator lists it there (NAME, or NAME@host to pin the host)"
        }
        guard let parsed = URLComponents(string: url), let host = parsed.host?.lowercased() else {
            return "endpoints.cdn.url \(url) has no host"
        }
        if parsed.scheme?.lowercased() != "https", !LoopbackHost.contains(host) {
            return "endpoints.cdn.url \(url) would send \(name) in clear text: use https:// (plain http only to a loopback address)"
        }
        if let pinned, pinned != host {
            return "endpoints.cdn.url \(url) is not on \(pinned), the host \(Self.variable) allows \(name) to be sent to"
        }
        return nil
    }
}
