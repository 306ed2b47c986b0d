/// An HTTP request as providers build it: pure data, so request building is testable without a network.
public struct HTTPRequest: Sendable, Hashable {
    public enum Method: String, Sendable, Hashable {
        case GET, HEAD, POST, PUT, PATCH, DELETE

        /// Safe to send twice: GET, HEAD, PUT and DELETE (RFC 9110). POST and PATCH are retried only when the
        /// caller says so, for example server-side apply, which is idempotent by design.
        public var isIdempotent: Bool {
            switch self {
            case .GET, .HEAD, .PUT, .DELETE: return true
            case .POST, .PATCH: return false
            }
        }
    }

    public var method: Method
    public var url: String
    /// In the order given; names as written.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// Lets the retry layer resend a POST or PATCH the caller knows to be idempotent.
    public var retryable: Bool
    /// Seconds this attempt may take at most: what is left of the request's time limit, set by the retry layer.
    public var timeLimit: Double?

    public init(method: Method, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, retryable: Bool? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.retryable = retryable ?? method.isIdempotent
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value) && lhs.body == rhs.body && lhs.retryable == rhs.retryable
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header names in lower case, in the order received.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// "1.1" or "2".
    public var httpVersion: String

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], httpVersion: String = "1.1") {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
    }

    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}
