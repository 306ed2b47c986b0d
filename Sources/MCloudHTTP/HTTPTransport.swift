/// Sends requests. Implemented on libcurl (`CurlTransport`), wrapped for retries (`RetryingTransport`).
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}

/// Where debug lines go; a library never prints on its own.
public protocol HTTPLogger: Sendable {
    func debug(_ line: String)
}
