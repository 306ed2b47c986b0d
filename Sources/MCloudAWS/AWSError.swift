import MCloudCore
public import MCloudHTTP

/// A failure talking to AWS (or an S3/EC2-compatible endpoint). Messages name the operation and never a secret;
/// what the server wrote reaches them through `TerminalText.safe`, so its control characters print as escapes.
public enum AWSError: Error, Sendable, CustomStringConvertible {
    /// The service answered with a typed error (`Code`/`__type`).
    case service(AWSServiceError)
    /// An answer that is neither success nor a typed error, such as an HTML 500 page.
    case unexpectedAnswer(operation: String, status: Int, detail: String)
    /// A success whose body could not be read as the operation's result.
    case invalidResponse(operation: String, detail: String)
    case transport(operation: String, HTTPError)
    /// Credentials, region or endpoint settings are missing or malformed.
    case configuration(String)
    case timeout(String)

    public var description: String { TerminalText.safe(text) }

    private var text: String {
        switch self {
        case .service(let error): return error.description
        case .unexpectedAnswer(let operation, let status, let detail): return "\(operation): unexpected HTTP \(status) answer: \(detail)"
        case .invalidResponse(let operation, let detail): return "\(operation): unreadable answer: \(detail)"
        case .transport(let operation, let error): return "\(operation): \(error)"
        case .configuration(let message): return "AWS configuration: \(message)"
        case .timeout(let message): return "timed out: \(message)"
        }
    }

    /// The service's error code (`NoSuchBucket`, `InvalidGroup.Duplicate`, ...), when it sent one.
    public var code: String? {
        if case .service(let error) = self { return error.code }
        return nil
    }

    /// The HTTP status of a service or unexpected answer.
    public var status: Int? {
        switch self {
        case .service(let error): return error.status
        case .unexpectedAnswer(_, let status, _): return status
        default: return nil
        }
    }
}

/// A typed AWS error answer with the operation that got it.
public struct AWSServiceError: Sendable, Hashable, CustomStringConvertible {
    public var operation: String
    public var status: Int
    public var code: String
    public var message: String
    public var requestID: String?

    public init(operation: String, status: Int, code: String, message: String, requestID: String? = nil) {
        self.operation = operation
        self.status = status
        self.code = code
        self.message = message
        self.requestID = requestID
    }

    public var description: String {
        TerminalText.safe("\(operation): \(code) (HTTP \(status)): \(message.isEmpty ? "no message" : message)" + (requestID.map { " [request id \($0)]" } ?? ""))
    }

    /// Codes AWS uses for "slow down"; these requests did not run, so any of them may be sent again.
    public static let throttlingCodes: Set<String> = [
        "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException", "TooManyRequestsException",
        "RequestLimitExceeded", "SlowDown", "RequestThrottled", "ProvisionedThroughputExceededException", "PriorRequestNotComplete",
    ]

    public var isThrottling: Bool { Self.throttlingCodes.contains(code) || status == 429 }
}
