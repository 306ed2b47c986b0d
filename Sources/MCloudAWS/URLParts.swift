import Foundation

/// A URL split the way SigV4 reads it: the path and query exactly as written, so nothing is re-encoded by accident.
struct URLParts: Sendable, Hashable {
    var scheme: String
    /// `host` or `host:port` as written, without any `user@`.
    var authority: String
    var path: String
    var query: String?

    init(_ url: String) {
        let afterScheme: Substring
        if let separator = url.range(of: "://") {
            scheme = String(url[..<separator.lowerBound])
            afterScheme = url[separator.upperBound...]
        } else {
            scheme = "https"
            afterScheme = url[...]
        }
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
        let rawAuthority = afterScheme[..<authorityEnd]
        authority = String(rawAuthority.split(separator: "@", omittingEmptySubsequences: false).last ?? rawAuthority)
        let rest = afterScheme[authorityEnd...]
        if let question = rest.firstIndex(of: "?") {
            path = String(rest[..<question])
            query = String(rest[rest.index(after: question)...])
        } else {
            path = String(rest)
            query = nil
        }
        if path.isEmpty { path = "/" }
    }

    var base: String { "\(scheme)://\(authority)" }

    /// The Host header as libcurl sends it: the authority without the scheme's default port, which libcurl drops,
    /// so an endpoint written `https://host:443` is signed for the host the server sees.
    var hostHeader: String {
        let defaultPort = [("https", ":443"), ("http", ":80")].first { $0.0 == scheme.lowercased() }?.1
        guard let defaultPort, authority.hasSuffix(defaultPort) else { return authority }
        return String(authority.dropLast(defaultPort.count))
    }

    var url: String { base + path + (query.map { "?\($0)" } ?? "") }

    /// The host without a port, for virtual-host addressing and error messages.
    var host: String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") { return String(authority[...close]) }
        return String(authority.split(separator: ":").first ?? "")
    }
}
