public import Foundation
public import MCloudCore
public import MCloudHTTP

/// One authenticated connection to a cloud: issues a Keystone v3 token, reuses it until shortly before it expires,
/// authenticates again once when a service answers 401, and sends requests to endpoints from the token's catalog.
public actor OpenStackSession {
    public nonisolated let cloud: CloudConfig
    /// A token this close to expiry is replaced before use, so no request starts with a token about to lapse.
    public static let renewalMargin: TimeInterval = 300
    static let userAgent = "mcloud/0.1.0"

    private let transport: any HTTPTransport
    private let endpointOverrides: [String: String]
    private let now: @Sendable () -> Date
    private var current: Token?

    /// `endpointOverrides` maps a service type to a URL used instead of the catalog's (openstacksdk's
    /// `<type>_endpoint_override`), for example to reach a service through a proxy.
    public init(
        cloud: CloudConfig, transport: (any HTTPTransport)? = nil, endpointOverrides: [String: String] = [:],
        retryPolicy: RetryPolicy = RetryPolicy(), timeouts: HTTPTimeouts = HTTPTimeouts(), logger: (any HTTPLogger)? = nil,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws(OpenStackError) {
        self.cloud = cloud
        self.endpointOverrides = endpointOverrides
        self.now = now
        if let transport {
            self.transport = transport
        } else {
            var tls = TLSConfiguration(insecureSkipVerify: !cloud.verify)
            if let file = cloud.caCertificateFile {
                guard let pem = FileManager.default.contents(atPath: file) else {
                    throw .configuration("cacert \(file) cannot be read", at: nil, file: cloud.file)
                }
                tls.certificateAuthorityPEM = Array(pem)
            }
            self.transport = RetryingTransport(CurlTransport(tls: tls, timeouts: timeouts, logger: logger), policy: retryPolicy, logger: logger)
        }
    }

    /// The current token, issuing a new one when there is none or it expires within `renewalMargin`.
    public func token() async throws(OpenStackError) -> Token {
        if let current, current.expiresAt.timeIntervalSince(now()) > Self.renewalMargin { return current }
        let issued = try await issueToken()
        current = issued
        return issued
    }

    /// Forgets the token, so the next request authenticates again.
    public func invalidate() {
        current = nil
    }

    /// The URL of a service for this cloud's interface and region (or its override).
    public func endpoint(_ type: String) async throws(OpenStackError) -> String {
        if let override = endpointOverrides[type] { return override.hasSuffix("/") ? String(override.dropLast()) : override }
        return try await token().catalog.url(type: type, interface: cloud.interface, region: cloud.regionName)
    }

    /// Keystone's URL ending in `/v3`, whichever way clouds.yaml wrote it.
    nonisolated var identityURL: String {
        var url = cloud.authURL
        while url.hasSuffix("/") { url.removeLast() }
        return url.hasSuffix("/v3") ? url : url + "/v3"
    }

    private func issueToken() async throws(OpenStackError) -> Token {
        let operation = "authenticate to \(cloud.name) (\(cloud.auth))"
        // Issuing a token creates nothing lasting, so the POST may be retried like a GET.
        let request = HTTPRequest(
            method: .POST, url: identityURL + "/auth/tokens",
            headers: [("Content-Type", "application/json"), ("Accept", "application/json"), ("User-Agent", Self.userAgent)],
            body: Array(Self.authBody(cloud.auth).serialized(pretty: false).utf8), retryable: true
        )
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw .transport(operation: operation, error)
        }
        guard response.status == 201 || response.status == 200 else { throw .api(APIFault.decode(operation: operation, response: response)) }
        guard let value = response.header("x-subject-token"), !value.isEmpty else {
            throw .invalidResponse("\(operation): Keystone answered \(response.status) without X-Subject-Token")
        }
        let body: JSONValue
        do {
            body = try JSONParser.parse(response.body)
        } catch {
            throw .invalidResponse("\(operation): \(error)")
        }
        return try Token.decode(value: value, body: body)
    }

    /// The `POST /v3/auth/tokens` body: password with an optional project scope, or an application credential
    /// (which carries its own scope).
    static func authBody(_ auth: CloudConfig.Auth) -> JSONValue {
        func reference(_ scope: CloudConfig.Scope, secret: (String, String)? = nil) -> JSONValue {
            var pairs: [(String, JSONValue)] = []
            if let id = scope.id { pairs.append(("id", .string(id))) }
            if let name = scope.name { pairs.append(("name", .string(name))) }
            if scope.id == nil, let domain = domain(scope) { pairs.append(("domain", domain)) }
            if let secret { pairs.append((secret.0, .string(secret.1))) }
            return .object(pairs)
        }
        func domain(_ scope: CloudConfig.Scope) -> JSONValue? {
            if let id = scope.domainID { return .object([("id", .string(id))]) }
            if let name = scope.domainName { return .object([("name", .string(name))]) }
            return nil
        }
        switch auth {
        case .password(let user, let password, let project):
            var auth: [(String, JSONValue)] = [(
                "identity", .object([("methods", .array([.string("password")])), ("password", .object([("user", reference(user, secret: ("password", password)))]))])
            )]
            if let project { auth.append(("scope", .object([("project", reference(project))]))) }
            return .object([("auth", .object(auth))])
        case .applicationCredential(let id, let name, let secret, let user):
            var credential: [(String, JSONValue)] = []
            if let id {
                credential.append(("id", .string(id)))
            } else if let name {
                credential.append(("name", .string(name)))
                if let user { credential.append(("user", reference(user))) }
            }
            credential.append(("secret", .string(secret)))
            return .object([("auth", .object([(
                "identity", .object([("methods", .array([.string("application_credential")])), ("application_credential", .object(credential))])
            )]))])
        }
    }

    /// A request to a service: `path` is appended to the service's endpoint. A 401 authenticates again and
    /// sends once more; any other answer is returned as it is.
    public func send(
        _ service: String, _ method: HTTPRequest.Method, _ path: String, body: JSONValue? = nil,
        headers: [(name: String, value: String)] = [], retryable: Bool? = nil, operation: String
    ) async throws(OpenStackError) -> HTTPResponse {
        let base = try await endpoint(service)
        var response = try await attempt(base + path, method, body: body, headers: headers, retryable: retryable, operation: operation)
        if response.status == 401 {
            invalidate()
            response = try await attempt(base + path, method, body: body, headers: headers, retryable: retryable, operation: operation)
        }
        return response
    }

    private func attempt(
        _ url: String, _ method: HTTPRequest.Method, body: JSONValue?, headers: [(name: String, value: String)], retryable: Bool?, operation: String
    ) async throws(OpenStackError) -> HTTPResponse {
        var all: [(name: String, value: String)] = [("Accept", "application/json"), ("User-Agent", Self.userAgent), ("X-Auth-Token", try await token().value)]
        if body != nil { all.append(("Content-Type", "application/json")) }
        all += headers
        let request = HTTPRequest(method: method, url: url, headers: all, body: body.map { Array($0.serialized(pretty: false).utf8) }, retryable: retryable)
        do {
            return try await transport.send(request)
        } catch {
            throw .transport(operation: operation, error)
        }
    }

    /// Sends and decodes a JSON answer; statuses outside `expect` become typed errors (quota ones `.capacity`).
    public func json(
        _ service: String, _ method: HTTPRequest.Method, _ path: String, body: JSONValue? = nil,
        headers: [(name: String, value: String)] = [], expect: Set<Int> = [200], retryable: Bool? = nil, operation: String
    ) async throws(OpenStackError) -> JSONValue {
        let response = try await send(service, method, path, body: body, headers: headers, retryable: retryable, operation: operation)
        try Self.check(response, expect: expect, operation: operation)
        guard !response.body.isEmpty else { return .null }
        do {
            return try JSONParser.parse(response.body)
        } catch {
            throw .invalidResponse("\(operation): \(error)")
        }
    }

    static func check(_ response: HTTPResponse, expect: Set<Int>, operation: String) throws(OpenStackError) {
        guard !expect.contains(response.status) else { return }
        let fault = APIFault.decode(operation: operation, response: response)
        throw fault.isQuotaExceeded ? .capacity(fault) : .api(fault)
    }

    /// Polls a resource until its service answers 404.
    func waitUntilGone(_ service: String, _ path: String, headers: [(name: String, value: String)] = [], poller: Poller, what: String) async throws(OpenStackError) {
        _ = try await poller.poll("\(what) to be deleted") { () async throws(OpenStackError) -> Bool? in
            let response = try await self.send(service, .GET, path, headers: headers, operation: "get \(what)")
            if response.status == 404 { return true }
            try Self.check(response, expect: [200], operation: "get \(what)")
            return nil
        }
    }
}
