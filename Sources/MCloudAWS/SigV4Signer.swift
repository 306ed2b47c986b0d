public import Foundation
import MCloudCrypto
public import MCloudHTTP

/// AWS Signature Version 4: the `Authorization` header, or a presigned URL (query signing).
/// Follows the official test suite (aws-c-auth `aws-signing-test-suite/v4`); S3 differs only through `Options`.
public struct SigV4Signer: Sendable {
    public struct Options: Sendable, Hashable {
        /// Removes `.`/`..` segments and repeated slashes before signing; every service but S3.
        public var normalizePath: Bool
        /// Percent-encodes the path as sent once more; every service but S3, whose paths are signed as sent.
        public var encodePath: Bool
        /// Sends the payload hash as `x-amz-content-sha256`; S3 requires it.
        public var payloadHashHeader: Bool
        /// Signs `UNSIGNED-PAYLOAD` instead of the body's hash (S3 only).
        public var unsignedPayload: Bool
        /// Adds the session token after signing instead of signing it (some services want it so).
        public var omitSessionToken: Bool

        public init(normalizePath: Bool = true, encodePath: Bool = true, payloadHashHeader: Bool = false, unsignedPayload: Bool = false, omitSessionToken: Bool = false) {
            self.normalizePath = normalizePath
            self.encodePath = encodePath
            self.payloadHashHeader = payloadHashHeader
            self.unsignedPayload = unsignedPayload
            self.omitSessionToken = omitSessionToken
        }

        public static let standard = Options()
        public static let s3 = Options(normalizePath: false, encodePath: false, payloadHashHeader: true)
    }

    /// A signed request with the intermediate texts, so tests and debugging can compare each step.
    public struct Signed: Sendable {
        public var request: HTTPRequest
        public var canonicalRequest: String
        public var stringToSign: String
        public var signature: String
    }

    public static let algorithm = "AWS4-HMAC-SHA256"
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// Headers a proxy or the HTTP stack may change, so never signed.
    static let unsignedHeaders: Set<String> = ["authorization", "user-agent", "expect", "x-amzn-trace-id"]

    public var credentials: AWSCredentials
    public var region: String
    public var service: String
    public var options: Options

    public init(credentials: AWSCredentials, region: String, service: String, options: Options = .standard) {
        self.credentials = credentials
        self.region = region
        self.service = service
        self.options = options
    }

    /// Header signing: adds `X-Amz-Date`, the session token, `x-amz-content-sha256` when asked, and `Authorization`.
    public func sign(_ request: HTTPRequest, at date: Date) -> Signed {
        let stamp = AmzDate(date)
        var signed = request
        if let token = credentials.sessionToken { signed.headers.append(("X-Amz-Security-Token", token)) }
        signed.headers.append(("X-Amz-Date", stamp.full))
        let payload = payloadHash(request)
        if options.payloadHashHeader, request.header("x-amz-content-sha256") == nil {
            signed.headers.append(("x-amz-content-sha256", payload))
        }
        var toSign = signed
        if options.omitSessionToken { toSign.headers.removeAll { $0.name.lowercased() == "x-amz-security-token" } }
        let parts = URLParts(request.url)
        let headers = canonicalHeaders(toSign, parts: parts)
        let canonical = canonicalRequest(method: request.method, parts: parts, query: parts.query, headers: headers, payload: payload)
        let (stringToSign, signature) = signature(canonical, stamp: stamp)
        signed.headers.append((
            "Authorization",
            "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope(stamp)), SignedHeaders=\(headers.names), Signature=\(signature)"
        ))
        return Signed(request: signed, canonicalRequest: canonical, stringToSign: stringToSign, signature: signature)
    }

    /// Query signing (a presigned URL valid for `expires` seconds): the signature goes into the URL, headers stay.
    public func presign(_ request: HTTPRequest, at date: Date, expires: Int) -> Signed {
        let stamp = AmzDate(date)
        let parts = URLParts(request.url)
        let headers = canonicalHeaders(request, parts: parts)
        var added: [(String, String)] = [
            ("X-Amz-Algorithm", Self.algorithm),
            ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(stamp))"),
            ("X-Amz-Date", stamp.full),
            ("X-Amz-SignedHeaders", headers.names),
            ("X-Amz-Expires", String(expires)),
        ]
        let token = credentials.sessionToken.map { ("X-Amz-Security-Token", $0) }
        if let token, !options.omitSessionToken { added.append(token) }
        let query = joinQuery(parts.query, PercentEncoding.query(added))
        let canonical = canonicalRequest(method: request.method, parts: parts, query: query, headers: headers, payload: payloadHash(request))
        let (stringToSign, signature) = signature(canonical, stamp: stamp)
        if let token, options.omitSessionToken { added.append(token) }
        added.append(("X-Amz-Signature", signature))
        var signed = request
        signed.url = parts.base + parts.path + "?" + joinQuery(parts.query, PercentEncoding.query(added))
        return Signed(request: signed, canonicalRequest: canonical, stringToSign: stringToSign, signature: signature)
    }

    /// The signing key for a day: an HMAC chain over date, region, service and `aws4_request`.
    public func signingKey(day: String) -> [UInt8] {
        var key = HMAC.sha256(key: Array("AWS4\(credentials.secretAccessKey)".utf8), message: Array(day.utf8))
        for part in [region, service, "aws4_request"] {
            key = HMAC.sha256(key: key, message: Array(part.utf8))
        }
        return key
    }

    private func scope(_ stamp: AmzDate) -> String { "\(stamp.day)/\(region)/\(service)/aws4_request" }

    private func signature(_ canonical: String, stamp: AmzDate) -> (String, String) {
        let stringToSign = [Self.algorithm, stamp.full, scope(stamp), Hex.lowercase(SHA2.sha256(Array(canonical.utf8)))].joined(separator: "\n")
        let signature = Hex.lowercase(HMAC.sha256(key: signingKey(day: stamp.day), message: Array(stringToSign.utf8)))
        return (stringToSign, signature)
    }

    private func payloadHash(_ request: HTTPRequest) -> String {
        if let given = request.header("x-amz-content-sha256") { return given }
        return options.unsignedPayload ? Self.unsignedPayload : Hex.lowercase(SHA2.sha256(request.body ?? []))
    }

    private func joinQuery(_ first: String?, _ second: String) -> String {
        guard let first, !first.isEmpty else { return second }
        return first + "&" + second
    }

    private func canonicalRequest(method: HTTPRequest.Method, parts: URLParts, query: String?, headers: CanonicalHeaders, payload: String) -> String {
        [method.rawValue, canonicalPath(parts.path), Self.canonicalQuery(query), headers.block, headers.names, payload].joined(separator: "\n")
    }

    private func canonicalPath(_ path: String) -> String {
        let normalized = options.normalizePath ? Self.normalize(path) : path
        return options.encodePath ? PercentEncoding.encode(normalized, keepSlash: true) : normalized
    }

    /// Removes empty and `.` segments and resolves `..`, keeping a trailing slash.
    static func normalize(_ path: String) -> String {
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        let joined = "/" + segments.joined(separator: "/")
        let trailing = path.hasSuffix("/") || path.hasSuffix("/.") || path.hasSuffix("/..")
        return trailing && !segments.isEmpty ? joined + "/" : joined
    }

    /// Each name and value decoded, then encoded strictly, sorted by name and then by value.
    static func canonicalQuery(_ query: String?) -> String {
        guard let query else { return "" }
        let pairs = query.split(separator: "&").map { pair -> (String, String) in
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentEncoding.encode(PercentEncoding.decode(halves[0]))
            let value = halves.count > 1 ? PercentEncoding.encode(PercentEncoding.decode(halves[1])) : ""
            return (name, value)
        }
        return pairs.sorted { $0.0 == $1.0 ? Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8)) : Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    private struct CanonicalHeaders {
        var block: String
        var names: String
    }

    /// Lower-case names sorted; values trimmed with inner whitespace runs collapsed; repeats joined with commas.
    private func canonicalHeaders(_ request: HTTPRequest, parts: URLParts) -> CanonicalHeaders {
        var values: [String: [String]] = [:]
        for header in request.headers {
            let name = header.name.lowercased()
            guard !Self.unsignedHeaders.contains(name) else { continue }
            values[name, default: []].append(header.value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " "))
        }
        if values["host"] == nil { values["host"] = [parts.hostHeader] }
        let names = values.keys.sorted()
        let block = names.map { "\($0):\(values[$0, default: []].joined(separator: ","))\n" }.joined()
        return CanonicalHeaders(block: block, names: names.joined(separator: ";"))
    }
}

/// `YYYYMMDD'T'HHMMSS'Z'` and `YYYYMMDD` in UTC.
struct AmzDate {
    let full: String
    let day: String

    init(_ date: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone.current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        day = String(format: "%04d", c.year ?? 0) + two(c.month) + two(c.day)
        full = day + "T" + two(c.hour) + two(c.minute) + two(c.second) + "Z"
    }
}
