public import MCloudCore
public import MCloudHTTP

/// The G-Core CDN API (`https://api.gcore.com/cdn`), which VK Cloud CDN also speaks under
/// `.../projects/<project id>`: an origin group per resource, the resource, one rule per cache path, purges.
/// Resources are found again by the marker in their `description`; a create whose answer was lost is adopted by
/// that marker instead of being sent twice. Writes send `If-Match` when the CDN gave an ETag.
public struct GCoreCDN: CDNService {
    /// G-Core API keys go in `Authorization: APIKey`; VK takes a Keystone token in `X-Auth-Token`.
    public enum Credential: Sendable, Hashable {
        case apiKey(String)
        case keystoneToken(String)

        var header: (name: String, value: String) {
            switch self {
            case .apiKey(let key): return ("Authorization", "APIKey \(key)")
            case .keystoneToken(let token): return ("X-Auth-Token", token)
            }
        }
    }

    let baseURL: String
    let credential: Credential
    /// `/origin_groups` on G-Core, `/originGroups` on VK.
    let originGroupsPath: String
    let transport: any HTTPTransport
    /// How resources, deletes and purges are waited for: a look every `pollInterval` seconds for `timeout` seconds.
    let poller: Poller

    /// `transport` should retry (429 with `Retry-After`, 5xx); creates are sent once and adopted when lost.
    public init(
        baseURL: String, credential: Credential, originGroupsPath: String = "/origin_groups",
        transport: any HTTPTransport = RetryingTransport(CurlTransport()), pollInterval: Double = 5, timeout: Double = 900,
        clock: any WallClock = SystemClock()
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.credential = credential
        self.originGroupsPath = originGroupsPath
        self.transport = transport
        poller = Poller(backoff: .constant(pollInterval), timeout: timeout, clock: clock)
    }

    // MARK: Requests and answers (pure)

    public func request(_ method: HTTPRequest.Method, _ path: String, body: JSONValue? = nil, headers: [(name: String, value: String)] = [], retryable: Bool? = nil) -> HTTPRequest {
        var all = [credential.header, ("Accept", "application/json")] + headers
        if body != nil { all.append(("Content-Type", "application/json")) }
        return HTTPRequest(method: method, url: baseURL + path, headers: all, body: body.map { Array($0.serialized(pretty: false).utf8) }, retryable: retryable)
    }

    /// The origin group of a resource: every origin active, the next one tried on errors and timeouts.
    public static func originGroupBody(_ spec: CDNResourceSpec) -> JSONValue {
        .object([
            ("name", .string(spec.name)),
            ("sources", .array(spec.origins.map { .object([("source", .string($0)), ("backup", .bool(false)), ("enabled", .bool(true))]) })),
            ("use_next", .bool(true)),
            ("proxy_next_upstream", .array([.string("error"), .string("timeout")])),
        ])
    }

    /// The resource: plain HTTP to the origins (an Ingress without a host or TLS), the marker as description.
    public static func resourceBody(_ spec: CDNResourceSpec, originGroup: Int) -> JSONValue {
        .object([
            ("cname", .string(spec.cname)),
            ("name", .string(spec.name)),
            ("description", .string(spec.marker.description)),
            ("originGroup", .int(originGroup)),
            ("originProtocol", .string("HTTP")),
            ("active", .bool(true)),
        ])
    }

    /// One rule per cache path, named by the glob and matching its regular expression (`ruleType` 0).
    public static func ruleBody(_ rule: CDNCacheRule, weight: Int) -> JSONValue {
        .object([
            ("name", .string(rule.path)),
            ("rule", .string(regularExpression(glob: rule.path))),
            ("ruleType", .int(0)),
            ("active", .bool(true)),
            ("weight", .int(weight)),
            ("options", .object([("edge_cache_settings", .object([("enabled", .bool(true)), ("value", .string("\(rule.ttlSeconds)s"))]))])),
        ])
    }

    /// `/static/*.js` -> `^/static/.*\.js$`: `*` is any run of characters, everything else literal.
    public static func regularExpression(glob: String) -> String {
        let special: Set<Character> = [".", "+", "?", "(", ")", "[", "]", "{", "}", "|", "^", "$", "\\"]
        return "^" + glob.map { $0 == "*" ? ".*" : special.contains($0) ? "\\\($0)" : String($0) }.joined() + "$"
    }

    /// A resource as the CDN reports it, its origins taken from its group's sources.
    public static func deployment(_ resource: JSONValue, groups: [Int: JSONValue]) -> CDNDeployment? {
        guard let id = resource["id"]?.intValue else { return nil }
        let group = resource["originGroup"]?.intValue.flatMap { groups[$0] }
        let rules = resource["rules"]?.arrayItems.compactMap { rule -> CDNCacheRule? in
            guard let path = rule["name"]?.stringValue, let ttl = ttlSeconds(rule.value(at: ["options", "edge_cache_settings", "value"])) else { return nil }
            return CDNCacheRule(path: path, ttlSeconds: ttl)
        } ?? []
        let status = resource["status"]?.stringValue ?? "unknown"
        return CDNDeployment(
            id: String(id), cname: resource["cname"]?.stringValue ?? "",
            origins: group?["sources"]?.arrayItems.compactMap { $0["source"]?.stringValue } ?? [], cacheRules: rules,
            marker: resource["description"]?.stringValue.flatMap(CDNMarker.init), status: status,
            isDeleting: status == "deleted" || resource["deleted"] == .bool(true)
        )
    }

    /// `"86400s"`, `"1d"`-free seconds as G-Core writes them, or a bare number.
    static func ttlSeconds(_ value: JSONValue?) -> Int? {
        if let number = value?.intValue { return number }
        guard var text = value?.stringValue else { return nil }
        if text.hasSuffix("s") { text.removeLast() }
        return Int(text)
    }

    /// G-Core's error bodies: `{"errors": {field: [messages]}}` for bad input, `{"detail": message}` otherwise.
    public static func error(_ response: HTTPResponse, operation: String) -> CDNError {
        let body = try? JSONParser.parse(response.body)
        var message: String
        if let errors = body?["errors"], case .object(let fields) = errors {
            message = fields.map { field, value in
                "\(field): " + (value.arrayItems.isEmpty ? value.stringValue ?? value.serialized(pretty: false) : value.arrayItems.compactMap(\.stringValue).joined(separator: " "))
            }.joined(separator: "; ")
        } else if let detail = body?["detail"]?.stringValue ?? body?["message"]?.stringValue {
            message = detail
        } else {
            message = String(response.text.prefix(200))
        }
        if message.isEmpty { message = "no details in the answer" }
        let kind: CDNError.Kind
        switch response.status {
        case 401, 403: kind = .unauthorized
        case 404: kind = .notFound
        case 409, 412: kind = .conflict
        case 429: kind = .capacity
        case 400 where message.lowercased().contains("limit") || message.lowercased().contains("quota"): kind = .capacity
        default: kind = .failed
        }
        return CDNError(kind, operation: operation, status: response.status, message: message)
    }

    // MARK: CDNService

    public func list() async throws(CDNError) -> [CDNDeployment] {
        let resources = try await json(request(.GET, "/resources"), "G-Core CDN list resources")
        let groups = try await groupsByID()
        return resources.arrayItems.compactMap { Self.deployment($0, groups: groups) }.filter { $0.marker != nil }
    }

    public func read(id: String) async throws(CDNError) -> CDNDeployment? {
        guard let (resource, _) = try await resource(id: id) else { return nil }
        var groups: [Int: JSONValue] = [:]
        if let groupID = resource["originGroup"]?.intValue, let group = try await optionalJSON(request(.GET, "\(originGroupsPath)/\(groupID)"), "G-Core CDN read origin group \(groupID)") {
            groups[groupID] = group
        }
        return Self.deployment(resource, groups: groups)
    }

    public func ensure(_ spec: CDNResourceSpec, id: String?) async throws(CDNError) -> CDNDeployment {
        var current = try await id.asyncFlatMap { id throws(CDNError) in try await resource(id: id) }
        if current == nil, let found = try await findResource(address: spec.marker.address) { current = try await resource(id: found) }
        let groupID = try await ensureGroup(spec, id: current?.body["originGroup"]?.intValue)
        let resourceID: Int
        if let (body, etag) = current, let existing = body["id"]?.intValue {
            resourceID = existing
            try await replace(spec, id: existing, group: groupID, etag: etag)
        } else {
            resourceID = try await create(spec, group: groupID)
        }
        try await syncRules(spec.cacheRules, resource: resourceID)
        return try await waitUntilActive(id: resourceID)
    }

    public func delete(id: String) async throws(CDNError) {
        let operation = "G-Core CDN delete resource \(id)"
        guard let (resource, etag) = try await resource(id: id) else { return }
        if resource["status"]?.stringValue != "deleted" {
            let response = try await send(request(.DELETE, "/resources/\(id)", headers: etag.map { [("If-Match", $0)] } ?? []), operation)
            guard (200..<300).contains(response.status) || response.status == 404 else { throw Self.error(response, operation: operation) }
        }
        try await poll("resource \(id) gone") { () throws(CDNError) in try await self.resource(id: id) == nil }
        if let group = resource["originGroup"]?.intValue {
            let response = try await send(request(.DELETE, "\(originGroupsPath)/\(group)"), "G-Core CDN delete origin group \(group)")
            guard (200..<300).contains(response.status) || response.status == 404 else { throw Self.error(response, operation: "G-Core CDN delete origin group \(group)") }
        }
    }

    public func purge(id: String, paths: [String]) async throws(CDNError) -> CDNPurge {
        let operation = "G-Core CDN purge resource \(id)"
        guard let (resource, _) = try await resource(id: id) else { throw CDNError(.notFound, operation: operation, message: "no CDN resource \(id)") }
        // A throttled purge was not run, so sending it again is safe: the transport waits out Retry-After.
        let answer = try await json(request(.POST, "/resources/\(id)/purge", body: .object([("paths", .array(paths.map { .string($0) }))]), retryable: true), operation)
        guard let purgeID = answer["purge_id"]?.intValue else { throw CDNError(.failed, operation: operation, message: "no purge_id in the answer") }
        return CDNPurge(resourceID: id, id: String(purgeID), status: answer["status"]?.stringValue ?? "In progress", cname: resource["cname"]?.stringValue ?? "")
    }

    public func waitForPurge(_ purge: CDNPurge) async throws(CDNError) -> CDNPurge {
        var current = purge
        try await poll("purge \(purge.id) finished") { () throws(CDNError) in
            let statuses = try await json(request(.GET, "/purge_statuses?cname=\(purge.cname)"), "G-Core CDN purge status \(purge.id)")
            if let entry = statuses["results"]?.arrayItems.first(where: { $0["purge_id"]?.intValue.map(String.init) == purge.id }) {
                current.status = entry["status"]?.stringValue ?? current.status
            }
            return current.isFinished
        }
        return current
    }

    // MARK: Steps

    private func create(_ spec: CDNResourceSpec, group: Int) async throws(CDNError) -> Int {
        let operation = "G-Core CDN create resource \(spec.name)"
        switch await exchange(request(.POST, "/resources", body: Self.resourceBody(spec, originGroup: group))) {
        case .success(let response):
            guard (200..<300).contains(response.status) else { throw Self.error(response, operation: operation) }
            guard let id = (try? JSONParser.parse(response.body))?["id"]?.intValue else { throw CDNError(.failed, operation: operation, message: "no id in the answer") }
            return id
        case .failure(let error):
            // The answer was lost, not necessarily the create: adopt what it made rather than make a second one.
            guard let found = try await findResource(address: spec.marker.address), let id = Int(found) else {
                throw CDNError(.failed, operation: operation, message: error.description)
            }
            try await replace(spec, id: id, group: group, etag: nil)
            return id
        }
    }

    private func replace(_ spec: CDNResourceSpec, id: Int, group: Int, etag: String?) async throws(CDNError) {
        let operation = "G-Core CDN update resource \(id)"
        let body = Self.resourceBody(spec, originGroup: group)
        var response = try await send(request(.PUT, "/resources/\(id)", body: body, headers: etag.map { [("If-Match", $0)] } ?? []), operation)
        if response.status == 412, let (_, fresh) = try await resource(id: String(id)) {
            // Changed since we read it: the manifests are the truth, so write again over the fresh version once.
            response = try await send(request(.PUT, "/resources/\(id)", body: body, headers: fresh.map { [("If-Match", $0)] } ?? []), operation)
        }
        guard (200..<300).contains(response.status) else { throw Self.error(response, operation: operation) }
    }

    private func ensureGroup(_ spec: CDNResourceSpec, id: Int?) async throws(CDNError) -> Int {
        let body = Self.originGroupBody(spec)
        var groupID = id
        if groupID == nil { groupID = try await groupsByID().first { $0.value["name"]?.stringValue == spec.name }?.key }
        if let groupID {
            _ = try await json(request(.PUT, "\(originGroupsPath)/\(groupID)", body: body), "G-Core CDN update origin group \(groupID)")
            return groupID
        }
        let operation = "G-Core CDN create origin group \(spec.name)"
        switch await exchange(request(.POST, originGroupsPath, body: body)) {
        case .success(let response):
            guard (200..<300).contains(response.status) else { throw Self.error(response, operation: operation) }
            guard let id = (try? JSONParser.parse(response.body))?["id"]?.intValue else { throw CDNError(.failed, operation: operation, message: "no id in the answer") }
            return id
        case .failure(let error):
            guard let found = try await groupsByID().first(where: { $0.value["name"]?.stringValue == spec.name })?.key else {
                throw CDNError(.failed, operation: operation, message: error.description)
            }
            return found
        }
    }

    /// Makes the resource's rules the wanted ones, matched by name (the path glob).
    private func syncRules(_ wanted: [CDNCacheRule], resource: Int) async throws(CDNError) {
        let path = "/resources/\(resource)/rules"
        let existing = try await json(request(.GET, path), "G-Core CDN list rules of \(resource)").arrayItems
        for (index, rule) in wanted.enumerated() {
            let body = Self.ruleBody(rule, weight: index + 1)
            let found = existing.first { $0["name"]?.stringValue == rule.path }
            if let found, let ruleID = found["id"]?.intValue {
                guard Self.ttlSeconds(found.value(at: ["options", "edge_cache_settings", "value"])) != rule.ttlSeconds
                    || found["rule"]?.stringValue != Self.regularExpression(glob: rule.path) || found["weight"]?.intValue != index + 1
                else { continue }
                _ = try await json(request(.PUT, "\(path)/\(ruleID)", body: body), "G-Core CDN update rule \(rule.path) of \(resource)")
            } else {
                let operation = "G-Core CDN create rule \(rule.path) of \(resource)"
                switch await exchange(request(.POST, path, body: body)) {
                case .success(let response):
                    guard (200..<300).contains(response.status) else { throw Self.error(response, operation: operation) }
                case .failure(let error):
                    let now = try await json(request(.GET, path), "G-Core CDN list rules of \(resource)").arrayItems
                    guard now.contains(where: { $0["name"]?.stringValue == rule.path }) else { throw CDNError(.failed, operation: operation, message: error.description) }
                }
            }
        }
        let names = Set(wanted.map(\.path))
        for rule in existing where !names.contains(rule["name"]?.stringValue ?? "") {
            guard let ruleID = rule["id"]?.intValue else { continue }
            let operation = "G-Core CDN delete rule \(ruleID) of \(resource)"
            let response = try await send(request(.DELETE, "\(path)/\(ruleID)"), operation)
            guard (200..<300).contains(response.status) || response.status == 404 else { throw Self.error(response, operation: operation) }
        }
    }

    private func waitUntilActive(id: Int) async throws(CDNError) -> CDNDeployment {
        var last: CDNDeployment?
        try await poll("resource \(id) active") { () throws(CDNError) in
            last = try await read(id: String(id))
            return last?.status == "active"
        }
        guard let last else { throw CDNError(.notFound, operation: "G-Core CDN read resource \(id)", message: "the resource disappeared") }
        return last
    }

    private func findResource(address: String) async throws(CDNError) -> String? {
        try await list().first { $0.marker?.address == address && !$0.isDeleting }?.id
    }

    private func resource(id: String) async throws(CDNError) -> (body: JSONValue, etag: String?)? {
        let operation = "G-Core CDN read resource \(id)"
        let response = try await send(request(.GET, "/resources/\(id)"), operation)
        if response.status == 404 { return nil }
        guard (200..<300).contains(response.status) else { throw Self.error(response, operation: operation) }
        return (try Self.parse(response, operation: operation), response.header("etag"))
    }

    private func groupsByID() async throws(CDNError) -> [Int: JSONValue] {
        let groups = try await json(request(.GET, originGroupsPath), "G-Core CDN list origin groups")
        // Newer API versions page lists as {count, results}.
        let items = groups["results"]?.arrayItems ?? groups.arrayItems
        return Dictionary(items.compactMap { group in group["id"]?.intValue.map { ($0, group) } }, uniquingKeysWith: { first, _ in first })
    }

    private func poll(_ what: String, _ done: () async throws(CDNError) -> Bool) async throws(CDNError) {
        try await poller.until(done) { stop in
            switch stop {
            case .timedOut(let seconds, _): return CDNError(.failed, operation: "G-Core CDN", message: "\(what) not reached within \(Int(seconds)) s")
            case .cancelled: return CDNError(.failed, operation: "G-Core CDN", message: "waiting for \(what): cancelled")
            }
        }
    }

    // MARK: Transport

    private func json(_ request: HTTPRequest, _ operation: String) async throws(CDNError) -> JSONValue {
        let response = try await send(request, operation)
        guard (200..<300).contains(response.status) else { throw Self.error(response, operation: operation) }
        return try Self.parse(response, operation: operation)
    }

    private func optionalJSON(_ request: HTTPRequest, _ operation: String) async throws(CDNError) -> JSONValue? {
        let response = try await send(request, operation)
        if response.status == 404 { return nil }
        guard (200..<300).contains(response.status) else { throw Self.error(response, operation: operation) }
        return try Self.parse(response, operation: operation)
    }

    private static func parse(_ response: HTTPResponse, operation: String) throws(CDNError) -> JSONValue {
        if response.body.isEmpty { return .null }
        do {
            return try JSONParser.parse(response.body)
        } catch {
            throw CDNError(.failed, operation: operation, status: response.status, message: "unreadable answer: \(error)")
        }
    }

    private func send(_ request: HTTPRequest, _ operation: String) async throws(CDNError) -> HTTPResponse {
        switch await exchange(request) {
        case .success(let response): return response
        case .failure(let error): throw CDNError(.failed, operation: operation, message: error.description)
        }
    }

    private func exchange(_ request: HTTPRequest) async -> Result<HTTPResponse, HTTPError> {
        do throws(HTTPError) {
            return .success(try await transport.send(request))
        } catch {
            return .failure(error)
        }
    }
}

extension Optional {
    /// `map` for an async, throwing transform.
    func asyncFlatMap<T, E: Error>(_ transform: (Wrapped) async throws(E) -> T?) async throws(E) -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
