import Dispatch
import Synchronization

/// HTTP on libcurl: TLS from memory, client certificates, HTTP/2 where offered, the proxy variables libcurl
/// reads itself (`https_proxy`, `no_proxy`), and connection reuse through a pool of handles. Each request runs
/// on a Dispatch thread, so waiting on the network never blocks Swift's cooperative pool.
public final class CurlTransport: HTTPTransport {
    public let tls: TLSConfiguration
    public let timeouts: HTTPTimeouts
    public let http2: Bool
    private let logger: (any HTTPLogger)?
    private let pool = Mutex<[CurlEasy]>([])
    private let requestNumbers = Atomic<Int>(0)
    private let queue = DispatchQueue(label: "mcloud.http", attributes: .concurrent)

    public init(tls: TLSConfiguration = .system, timeouts: HTTPTimeouts = HTTPTimeouts(), http2: Bool = true, logger: (any HTTPLogger)? = nil) {
        self.tls = tls
        self.timeouts = timeouts
        self.http2 = http2
        self.logger = logger
    }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let number = requestNumbers.add(1, ordering: .relaxed).newValue
        logger?.debug("http #\(number) \(request.method.rawValue) \(Redaction.url(request.url)) " + request.headers.map { "\($0.name)=\(Redaction.header($0.name, $0.value))" }.joined(separator: " "))
        let result: Result<HTTPResponse, HTTPError> = await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(returning: perform(request))
            }
        }
        switch result {
        case .success(let response):
            logger?.debug("http #\(number) \(response.status) HTTP/\(response.httpVersion) \(response.body.count) bytes")
            return response
        case .failure(let error):
            logger?.debug("http #\(number) failed: \(error)")
            throw error
        }
    }

    private func perform(_ request: HTTPRequest) -> Result<HTTPResponse, HTTPError> {
        guard let handle = pool.withLock({ $0.popLast() }) ?? CurlEasy() else {
            return .failure(.invalidRequest("libcurl could not start"))
        }
        defer { pool.withLock { $0.append(handle) } }
        do throws(HTTPError) {
            return .success(try handle.perform(request, tls: tls, timeouts: timeouts, http2: http2))
        } catch {
            return .failure(error)
        }
    }
}
