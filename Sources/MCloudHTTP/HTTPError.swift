/// Why a request got no HTTP answer. Messages name the operation and the host, never a credential.
public enum HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidRequest(String)
    /// DNS, refused or reset connections: worth a retry.
    case connection(url: String, detail: String)
    case timeout(url: String, seconds: Double)
    /// Certificate problems: never retried, since the same certificate comes back.
    case tls(url: String, detail: String)
    /// The retry budget ran out; the last failure is kept.
    case retriesExhausted(attempts: Int, last: String)
    case cancelled

    public var description: String {
        switch self {
        case .invalidRequest(let detail): return "invalid request: \(detail)"
        case .connection(let url, let detail): return "cannot reach \(Redaction.url(url)): \(detail)"
        case .timeout(let url, let seconds): return "no answer from \(Redaction.url(url)) within \(seconds) s"
        case .tls(let url, let detail): return "TLS with \(Redaction.url(url)) failed: \(detail)"
        case .retriesExhausted(let attempts, let last): return "gave up after \(attempts) attempts: \(last)"
        case .cancelled: return "cancelled"
        }
    }

    var isRetryable: Bool {
        switch self {
        case .connection, .timeout: return true
        case .invalidRequest, .tls, .retriesExhausted, .cancelled: return false
        }
    }
}
