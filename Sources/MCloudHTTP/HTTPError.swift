/// Why a request got no HTTP answer. Messages name the operation and the host, never a credential; one that hit a
/// limit names the limit and the variable that sets it (`HTTPLimits`).
public enum HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidRequest(String)
    /// DNS, refused or reset connections: worth a retry.
    case connection(url: String, detail: String)
    /// The request's whole time limit ran out (`MCLOUD_HTTP_TIMEOUT`), retries included.
    /// `last`: why the last attempt failed, when the deadline ended retries (a truncated answer, a stall).
    case timeout(url: String, seconds: Double, last: String? = nil)
    /// An answer went `seconds` without a byte (`MCLOUD_HTTP_STALL_TIMEOUT`): worth a retry while time is left.
    case stalled(url: String, seconds: Double)
    /// The answer's body is larger than `limit` bytes (`MCLOUD_HTTP_MAX_RESPONSE_MB`), by its Content-Length or as it came.
    case tooLarge(url: String, limit: Int)
    /// Certificate problems: never retried, since the same certificate comes back.
    case tls(url: String, detail: String)
    /// The retry budget ran out; the last failure is kept.
    case retriesExhausted(attempts: Int, last: String)
    case cancelled

    public var description: String {
        switch self {
        case .invalidRequest(let detail): return "invalid request: \(detail)"
        case .connection(let url, let detail): return "cannot reach \(Redaction.url(url)): \(detail)"
        case .timeout(let url, let seconds, let last):
            let reason = last.map { "; the last attempt: \($0)" } ?? ""
            return "no complete answer from \(Redaction.url(url)) within \(HTTPLimits.format(seconds)) s, the time limit of a request and its retries (\(HTTPLimits.timeoutVariable))\(reason)"
        case .stalled(let url, let seconds):
            return "the answer from \(Redaction.url(url)) stalled: nothing came for \(HTTPLimits.format(seconds)) s (\(HTTPLimits.stallVariable))"
        case .tooLarge(let url, let limit):
            return "the answer from \(Redaction.url(url)) is larger than \(limit >> 20) MiB (\(HTTPLimits.sizeVariable))"
        case .tls(let url, let detail): return "TLS with \(Redaction.url(url)) failed: \(detail)"
        case .retriesExhausted(let attempts, let last): return "gave up after \(attempts) attempts: \(last)"
        case .cancelled: return "cancelled"
        }
    }

    /// Failures another attempt may get past: the whole time limit and an oversized answer are not among them.
    public var isRetryable: Bool {
        switch self {
        case .connection, .stalled: return true
        case .invalidRequest, .timeout, .tooLarge, .tls, .retriesExhausted, .cancelled: return false
        }
    }
}
