import Foundation
internal import CCurl

/// One libcurl easy handle. It keeps its connections between requests, so a pool of them reuses connections.
/// Used by one thread at a time (the pool hands it out).
final class CurlEasy: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    init?() {
        guard Self.globalInit, let handle = curl_easy_init() else { return nil }
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
    }

    /// What libcurl collects while a request runs; written by its callbacks.
    private final class Exchange {
        var body: [UInt8] = []
        var headers: [(name: String, value: String)] = []
        /// The largest body accepted; the callbacks stop the transfer past it.
        let limit: Int
        var tooLarge = false

        init(limit: Int) {
            self.limit = limit
        }
    }

    func perform(_ request: HTTPRequest, tls: TLSConfiguration, timeouts: HTTPTimeouts, http2: Bool) throws(HTTPError) -> HTTPResponse {
        // libcurl sends a header line as given: a CR or LF would start a header (or a request) of the server's
        // choosing, a NUL would cut the value short.
        if let bad = request.headers.first(where: { Self.breaksTheLine($0.name) || $0.name.contains(":") || Self.breaksTheLine($0.value) }) {
            throw .invalidRequest("the header \(bad.name.debugDescription) holds a CR, LF or NUL (or a colon in its name); nothing was sent")
        }
        curl_easy_reset(handle)
        let exchange = Exchange(limit: timeouts.maxResponseBytes)
        let seconds = min(timeouts.total, request.timeLimit ?? timeouts.total)
        let context = Unmanaged.passUnretained(exchange).toOpaque()
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let started = ContinuousClock.now

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            var ok = true
            func set(_ option: CURLoption, _ value: Int) { ok = ok && mcloud_curl_setopt_long(handle, option, value) == CURLE_OK }
            func set(_ option: CURLoption, _ value: String) {
                ok = ok && value.withCString { mcloud_curl_setopt_pointer(handle, option, $0) } == CURLE_OK
            }
            func set(_ option: CURLoption, blob: [UInt8]) {
                ok = ok && blob.withUnsafeBytes { mcloud_curl_setopt_blob(handle, option, $0.baseAddress, $0.count) } == CURLE_OK
            }
            set(CURLOPT_URL, request.url)
            set(CURLOPT_NOSIGNAL, 1)
            set(CURLOPT_CONNECTTIMEOUT_MS, Int(timeouts.connect * 1000))
            set(CURLOPT_TIMEOUT_MS, max(1, Int(seconds * 1000)))
            // An answer that sends less than a byte a second for `stall` seconds is given up: a stalled body,
            // a server that accepted the connection and went silent.
            set(CURLOPT_LOW_SPEED_LIMIT, 1)
            set(CURLOPT_LOW_SPEED_TIME, max(1, Int(timeouts.stall.rounded(.up))))
            set(CURLOPT_HTTP_VERSION, http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1)
            set(CURLOPT_PROTOCOLS_STR, "http,https")
            // Without it libcurl squashes `./` and `../` in the path, so an S3 key holding them reaches another
            // object than the one signed, and the signature fails.
            set(CURLOPT_PATH_AS_IS, 1)
            set(CURLOPT_ACCEPT_ENCODING, "")
            // libcurl silently sends a request again when a reused connection turns out dead before any answer
            // byte; for a create that is not safe to repeat, that second send can make a second server. Such a
            // request gets a connection of its own, so whether it is repeated stays the caller's decision.
            set(CURLOPT_FRESH_CONNECT, request.retryable ? 0 : 1)
            ok = ok && mcloud_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress) == CURLE_OK
            if let authority = tls.certificateAuthorityPEM { set(CURLOPT_CAINFO_BLOB, blob: authority) }
            if let certificate = tls.clientCertificatePEM {
                set(CURLOPT_SSLCERTTYPE, "PEM")
                set(CURLOPT_SSLCERT_BLOB, blob: certificate)
            }
            if let key = tls.clientKeyPEM {
                set(CURLOPT_SSLKEYTYPE, "PEM")
                set(CURLOPT_SSLKEY_BLOB, blob: key)
            }
            if tls.insecureSkipVerify {
                set(CURLOPT_SSL_VERIFYPEER, 0)
                set(CURLOPT_SSL_VERIFYHOST, 0)
            }
            switch request.method {
            case .GET: set(CURLOPT_HTTPGET, 1)
            case .HEAD: set(CURLOPT_NOBODY, 1)
            default: set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            }
            // libcurl refuses a body whose Content-Length is over the limit before reading it; a chunked body has
            // none (and libcurl 7.88 does not count it), so the write callback counts too.
            if request.method != .HEAD {
                ok = ok && mcloud_curl_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(timeouts.maxResponseBytes)) == CURLE_OK
            }
            if let body = request.body {
                ok = ok && mcloud_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)) == CURLE_OK
                if body.isEmpty {
                    set(CURLOPT_COPYPOSTFIELDS, "")
                } else {
                    ok = ok && body.withUnsafeBytes { mcloud_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) } == CURLE_OK
                }
            }
            // An empty Expect stops curl waiting for "100 Continue" on large bodies.
            for line in request.headers.map({ "\($0.name): \($0.value)" }) + ["Expect:"] {
                headerList = curl_slist_append(headerList, line)
            }
            ok = ok && mcloud_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList) == CURLE_OK
            ok = ok && mcloud_curl_setopt_callback(handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
                guard let data, let context else { return 0 }
                let exchange = Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                guard exchange.body.count + length <= exchange.limit else {
                    exchange.tooLarge = true
                    return 0  // anything but `length` makes libcurl stop with CURLE_WRITE_ERROR
                }
                data.withMemoryRebound(to: UInt8.self, capacity: length) {
                    exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
                }
                return length
            }) == CURLE_OK
            ok = ok && mcloud_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context) == CURLE_OK
            ok = ok && mcloud_curl_setopt_callback(handle, CURLOPT_HEADERFUNCTION, { data, size, count, context in
                guard let data, let context else { return 0 }
                let exchange = Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                }
                if line.hasPrefix("HTTP/") {
                    exchange.headers = []  // a new response (after 100 Continue or a redirect) starts here
                } else if let colon = line.firstIndex(of: ":") {
                    let name = line[..<colon].lowercased()
                    let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
                    exchange.headers.append((name, value))
                }
                return length
            }) == CURLE_OK
            ok = ok && mcloud_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context) == CURLE_OK
            guard ok else { return CURLE_FAILED_INIT }
            return curl_easy_perform(handle)
        }
        let elapsed = (ContinuousClock.now - started).inSeconds
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if exchange.tooLarge || code == CURLE_FILESIZE_EXCEEDED { throw .tooLarge(url: request.url, limit: timeouts.maxResponseBytes) }
            throw Self.error(code, detail: detail, request: request, timeouts: timeouts, seconds: seconds, elapsed: elapsed)
        }
        var status = 0
        mcloud_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        mcloud_curl_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        return HTTPResponse(
            status: status, headers: exchange.headers, body: exchange.body,
            httpVersion: version == CURL_HTTP_VERSION_2_0 ? "2" : "1.1"
        )
    }

    private static func breaksTheLine(_ text: String) -> Bool {
        text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// libcurl's one code for every time limit is told apart by its message (connecting) and by the time taken
    /// (an attempt that ended well before its limit stalled).
    private static func error(
        _ code: CURLcode, detail: String, request: HTTPRequest, timeouts: HTTPTimeouts, seconds: Double, elapsed: Double
    ) -> HTTPError {
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_OPERATION_TIMEDOUT where message.hasPrefix("Connection timed out") || message.hasPrefix("Resolving timed out"):
            return .connection(url: request.url, detail: "no connection within \(HTTPLimits.format(timeouts.connect)) s (\(HTTPLimits.connectVariable))")
        case CURLE_OPERATION_TIMEDOUT where message.hasPrefix("Operation too slow") || elapsed + 0.25 < seconds:
            return .stalled(url: request.url, seconds: timeouts.stall)
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout(url: request.url, seconds: seconds)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            return .tls(url: request.url, detail: message)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_FAILED_INIT, CURLE_BAD_FUNCTION_ARGUMENT:
            return .invalidRequest("\(message) (\(Redaction.url(request.url)))")
        default:
            return .connection(url: request.url, detail: message)
        }
    }
}
