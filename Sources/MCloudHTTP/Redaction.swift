import Foundation

/// Keeps secrets out of logs and errors: credential headers, and signatures or tokens in query strings.
public enum Redaction {
    static let secretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-auth-token", "x-subject-token",
        "x-amz-security-token", "x-api-key", "apikey",
    ]
    static let secretParameters: Set<String> = [
        "x-amz-signature", "x-amz-credential", "x-amz-security-token", "token", "access_token", "signature", "password",
    ]
    public static let mask = "[REDACTED]"

    public static func header(_ name: String, _ value: String) -> String {
        secretHeaders.contains(name.lowercased()) ? mask : value
    }

    /// The URL with the values of secret query parameters and any user:password part replaced.
    public static func url(_ url: String) -> String {
        var result = url
        if let scheme = result.range(of: "://"), let at = result[scheme.upperBound...].firstIndex(of: "@"),
           !result[scheme.upperBound..<at].contains("/") {
            result.replaceSubrange(scheme.upperBound..<at, with: mask)
        }
        guard let question = result.firstIndex(of: "?") else { return result }
        let query = result[result.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, secretParameters.contains(parts[0].lowercased()) else { return String(pair) }
            return "\(parts[0])=\(mask)"
        }
        return String(result[...question]) + query.joined(separator: "&")
    }
}
