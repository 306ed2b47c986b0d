import MCloudProvider
import Foundation

/// A `postgres://` state URL taken apart: the workspace (mcloud's own `workspace` query parameter), the connection
/// string libpq gets (the URL without that parameter), a name for messages that holds no credential, and the secret
/// values to scrub from whatever libpq says.
struct PostgresURL: Sendable, Equatable {
    static let defaultWorkspace = "default"
    static let mask = "[REDACTED]"
    /// Parameters whose values are credentials; libpq's `password` and the client key's `sslpassword`.
    static let secretParameters: Set<String> = ["password", "sslpassword"]

    let workspace: String
    let connectionString: String
    /// `postgres://USER@HOSTS/DBNAME?workspace=NAME`: no password and no other parameter.
    let source: String
    let secrets: [String]

    /// Splits the URL the way libpq does: the user information ends at the first `@` before any `/`, and the
    /// parameters start at the first `?`. A URL to a remote host without `sslmode` gets `sslmode=verify-full`.
    init(_ text: String) throws(StateError) {
        guard let separator = text.range(of: "://") else { throw .invalidURL("a postgres URL starts with postgres:// or postgresql://") }
        let scheme = text[..<separator.lowerBound].lowercased()
        var rest = Substring(text[separator.upperBound...])
        var user = ""
        var secrets: [String] = []
        if let at = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[at] == "@" {
            let userInfo = rest[..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                user = String(userInfo[..<colon])
                secrets.append(String(userInfo[userInfo.index(after: colon)...]))
            } else {
                user = String(userInfo)
            }
            rest = rest[rest.index(after: at)...]
        }
        let location = rest.prefix { $0 != "?" }
        var workspaces: [String] = []
        var kept: [Substring] = []
        if location.endIndex < rest.endIndex {
            for pair in rest[rest.index(after: location.endIndex)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].lowercased()
                let value = parts.count == 2 ? String(parts[1]) : ""
                if name == "workspace" {
                    guard let decoded = value.removingPercentEncoding else { throw .invalidURL("the workspace parameter has a malformed %-escape") }
                    workspaces.append(decoded)
                } else {
                    if Self.secretParameters.contains(name) { secrets.append(value) }
                    kept.append(pair)
                }
            }
        }
        guard workspaces.count <= 1 else { throw .invalidURL("the workspace parameter is given \(workspaces.count) times") }
        let workspace = workspaces.first ?? Self.defaultWorkspace
        try Self.check(workspace: workspace)
        self.workspace = workspace
        let head = text[..<location.endIndex]
        if Self.needsVerifiedTLS(location: location, parameters: kept) { kept.append("sslmode=verify-full") }
        connectionString = kept.isEmpty ? String(head) : head + "?" + kept.joined(separator: "&")
        let decodedUser = user.removingPercentEncoding ?? user
        source = "\(scheme)://\(decodedUser.isEmpty ? "" : decodedUser + "@")\(location)?workspace=\(workspace)"
        self.secrets = (secrets + secrets.compactMap { $0.removingPercentEncoding }).filter { !$0.isEmpty }
    }

    /// True when the URL names no `sslmode` and reaches some host beyond this machine: libpq's own default, `prefer`,
    /// falls back to plain text and accepts any certificate, so the state (and the password) would go to whoever
    /// answers. A Unix socket and loopback addresses stay as libpq has them, which is how the local beds connect.
    /// Where libpq connects: `hostaddr`, else `host` from the parameters, else the URL's hosts; none is the socket.
    static func needsVerifiedTLS(location: Substring, parameters: [Substring]) -> Bool {
        var values: [String: String] = [:]
        for pair in parameters {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            values[parts[0].lowercased()] = parts.count == 2 ? String(parts[1]) : ""
        }
        guard values["sslmode"] == nil else { return false }
        let authority = location.prefix { $0 != "/" }
        let hosts = (values["hostaddr"] ?? values["host"]).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            ?? authority.split(separator: ",", omittingEmptySubsequences: false).map { host in
                host.hasPrefix("[") ? String(host.dropFirst().prefix { $0 != "]" }) : String(host.prefix { $0 != ":" })
            }
        return !hosts.allSatisfy { isLocal(host: $0.removingPercentEncoding ?? $0) }
    }

    /// A Unix socket folder (or none: libpq's default socket), `localhost`, 127.0.0.0/8 or ::1.
    static func isLocal(host: String) -> Bool {
        if host.isEmpty || host.hasPrefix("/") || host.hasPrefix("@") || host.lowercased() == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Letters, digits, `.`, `_` and `-`, at most 64: a workspace name also goes into lock keys and messages.
    static func check(workspace: String) throws(StateError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !workspace.isEmpty, workspace.count <= 64, workspace.allSatisfy(allowed.contains) else {
            throw .invalidURL("workspace \"\(workspace)\" must be 1 to 64 letters, digits, '.', '_' or '-'")
        }
    }

    /// `message` with every secret of this URL masked, on one line: libpq's messages span lines and may quote parts of
    /// a connection string.
    func scrub(_ message: String) -> String {
        var text = message
        for secret in secrets.sorted(by: { $0.count > $1.count }) {
            text = text.replacingOccurrences(of: secret, with: Self.mask)
        }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "; ")
    }

    /// The session-level advisory lock key of this workspace: FNV-1a (64 bits) of `mcloud-state:WORKSPACE`, fixed
    /// so every mcloud version takes the same lock for the same workspace.
    var lockKey: Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "mcloud-state:\(workspace)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}
