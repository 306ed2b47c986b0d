public import MCloudCore
public import MCloudHTTP

/// A failure talking to an OpenStack cloud. Messages name the operation, the HTTP status and the request id,
/// never a password, token or application credential secret.
public enum OpenStackError: Error, Sendable, CustomStringConvertible {
    /// clouds.yaml or OS_* variables: what is wrong, and where.
    case configuration(String, at: SourceLocation?, file: String?)
    /// The service answered with an error.
    case api(APIFault)
    /// A quota is exhausted (Nova 403, Cinder and Trove 413, Neutron OverQuota): the cloud has no room.
    case capacity(APIFault)
    case transport(operation: String, HTTPError)
    case noEndpoint(String)
    case noFittingFlavor(String)
    /// A resource reached ERROR; the cloud's fault message is kept.
    case resourceFailed(String)
    case timeout(String)
    case invalidResponse(String)

    /// A cloud's own words come through `TerminalText.safe`, so their control characters print as escapes.
    public var description: String { TerminalText.safe(text) }

    private var text: String {
        switch self {
        case .configuration(let message, let location, let file):
            if let location { return "\(location): clouds.yaml: \(message)" }
            if let file { return "\(file): clouds.yaml: \(message)" }
            return "OpenStack configuration: \(message)"
        case .api(let fault): return fault.description
        case .capacity(let fault): return "out of capacity: \(fault.description)"
        case .transport(let operation, let error): return "\(operation): \(error.description)"
        case .noEndpoint(let message): return "service catalog: \(message)"
        case .noFittingFlavor(let message): return "flavors: \(message)"
        case .resourceFailed(let message): return message
        case .timeout(let message): return "timed out: \(message)"
        case .invalidResponse(let message): return "unexpected answer: \(message)"
        }
    }

    /// No complete answer, or the service's own failure (5xx): the request may have been carried out, and the same
    /// request later may get through.
    public var isUncertain: Bool {
        switch self {
        case .transport: return true
        case .api(let fault): return fault.status >= 500
        default: return false
        }
    }

    /// The fault, for API and capacity errors.
    public var fault: APIFault? {
        switch self {
        case .api(let fault), .capacity(let fault): return fault
        default: return nil
        }
    }
}
