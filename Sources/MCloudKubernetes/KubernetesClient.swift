public import Foundation
public import MCloudCore
public import MCloudHTTP

/// Talks to one cluster the way kubectl does: discovery, server-side apply as field manager `mcloud`, reads,
/// label-selected lists, deletes with propagation, waiting, and rollout status. Every API error comes back as
/// `KubernetesError.api` with the server's reason, message and causes.
public actor KubernetesClient {
    public static let fieldManager = "mcloud"
    public static let userAgent = "mcloud/0.1.0"

    public nonisolated let connection: ClusterConnection
    private let retryPolicy: RetryPolicy
    private let timeouts: HTTPTimeouts
    private let logger: (any HTTPLogger)?
    private let plugin: ExecCredentialPlugin?
    /// What waits for the cluster (rollouts, deletes with finalizers) run on.
    private let clock: any WallClock
    private var transports: [[UInt8]: any HTTPTransport] = [:]
    private var groupVersions: Set<String>?
    private var resources: [String: [ResourceInfo]] = [:]

    public init(
        connection: ClusterConnection, environment: [String: String] = ProcessInfo.processInfo.environment,
        retryPolicy: RetryPolicy = RetryPolicy(), timeouts: HTTPTimeouts = HTTPTimeouts(), logger: (any HTTPLogger)? = nil,
        clock: any WallClock = SystemClock()
    ) {
        self.clock = clock
        self.connection = connection
        self.retryPolicy = retryPolicy
        self.timeouts = timeouts
        self.logger = logger
        if case .exec(let config) = connection.credentials {
            plugin = ExecCredentialPlugin(config: config, environment: environment)
        } else {
            plugin = nil
        }
    }

    // MARK: Requests

    /// One request with the right credentials; a 401 with an exec plugin renews the credential and tries once more.
    /// A request that got no answer fails naming `operation`.
    func send(
        _ method: HTTPRequest.Method, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil,
        contentType: String? = nil, retryable: Bool? = nil, operation: String
    ) async throws(KubernetesError) -> HTTPResponse {
        var response = try await attempt(method, path, query: query, body: body, contentType: contentType, retryable: retryable, operation: operation)
        if response.status == 401, let plugin {
            try await plugin.refresh()
            response = try await attempt(method, path, query: query, body: body, contentType: contentType, retryable: retryable, operation: operation)
        }
        return response
    }

    private func attempt(
        _ method: HTTPRequest.Method, _ path: String, query: [(String, String)], body: [UInt8]?, contentType: String?,
        retryable: Bool?, operation: String
    ) async throws(KubernetesError) -> HTTPResponse {
        var headers: [(name: String, value: String)] = [("Accept", "application/json"), ("User-Agent", Self.userAgent)]
        if let contentType { headers.append(("Content-Type", contentType)) }
        var clientCertificate: (certificate: [UInt8], key: [UInt8])?
        switch connection.credentials {
        case .none:
            break
        case .token(let token):
            headers.append(("Authorization", "Bearer \(token)"))
        case .tokenFile(let file):
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .credentials("tokenFile \(file) cannot be read")
            }
            headers.append(("Authorization", "Bearer \(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))"))
        case .exec:
            if let credential = try await plugin?.credential() {
                if let token = credential.token { headers.append(("Authorization", "Bearer \(token)")) }
                if let certificate = credential.clientCertificatePEM, let key = credential.clientKeyPEM { clientCertificate = (certificate, key) }
            }
        }
        let request = HTTPRequest(method: method, url: url(path, query), headers: headers, body: body, retryable: retryable)
        do {
            return try await transport(clientCertificate).send(request)
        } catch {
            throw .transport(operation: operation, error)
        }
    }

    /// One transport per client identity, so connections are reused; an exec plugin's certificate gets its own.
    private func transport(_ identity: (certificate: [UInt8], key: [UInt8])?) -> any HTTPTransport {
        let key = identity?.certificate ?? []
        if let existing = transports[key] { return existing }
        var tls = connection.tls
        if let identity {
            tls.clientCertificatePEM = identity.certificate
            tls.clientKeyPEM = identity.key
        }
        let transport = RetryingTransport(CurlTransport(tls: tls, timeouts: timeouts, logger: logger), policy: retryPolicy, logger: logger)
        transports[key] = transport
        return transport
    }

    private func url(_ path: String, _ query: [(String, String)]) -> String {
        guard !query.isEmpty else { return connection.server + path }
        return connection.server + path + "?" + query.map { "\($0.0)=\(Self.escape($0.1))" }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    private func json(_ response: HTTPResponse, _ operation: String) throws(KubernetesError) -> JSONValue {
        do {
            return try JSONParser.parse(response.body)
        } catch {
            throw .api(APIStatus(operation: operation, code: response.status, reason: nil, message: "the answer is not JSON: \(error)", causes: []))
        }
    }

    // MARK: Discovery

    public func serverVersion() async throws(KubernetesError) -> String {
        let response = try await send(.GET, "/version", operation: "get /version")
        guard response.status == 200 else { throw .api(APIStatus.decode(operation: "get /version", response: response)) }
        return try json(response, "get /version")["gitVersion"]?.stringValue ?? "unknown"
    }

    /// Where `kind` of `apiVersion` lives; discovery results are cached for the client's life.
    public func resource(apiVersion: String, kind: String) async throws(KubernetesError) -> ResourceInfo {
        if groupVersions == nil { groupVersions = try await loadGroupVersions() }
        guard groupVersions?.contains(apiVersion) == true else {
            let served = groupVersions?.filter { $0.hasPrefix(apiVersion.split(separator: "/").first.map { "\($0)/" } ?? "") }.sorted() ?? []
            throw .discovery("the cluster does not serve \(apiVersion)" + (served.isEmpty ? "" : " (it serves \(served.joined(separator: ", ")))"))
        }
        if resources[apiVersion] == nil {
            let path = apiVersion.contains("/") ? "/apis/\(apiVersion)" : "/api/\(apiVersion)"
            let response = try await send(.GET, path, operation: "discover \(apiVersion)")
            guard response.status == 200 else { throw .api(APIStatus.decode(operation: "discover \(apiVersion)", response: response)) }
            resources[apiVersion] = try json(response, "discover \(apiVersion)")["resources"]?.arrayItems.compactMap { item in
                guard let name = item["name"]?.stringValue, !name.contains("/"), let kind = item["kind"]?.stringValue else { return nil }
                return ResourceInfo(apiVersion: apiVersion, kind: kind, resource: name, namespaced: item["namespaced"] == .bool(true))
            } ?? []
        }
        guard let info = resources[apiVersion]?.first(where: { $0.kind == kind }) else {
            throw .discovery("\(apiVersion) has no kind \(kind)")
        }
        return info
    }

    private func loadGroupVersions() async throws(KubernetesError) -> Set<String> {
        var versions: Set<String> = []
        let core = try await send(.GET, "/api", operation: "discover /api")
        guard core.status == 200 else { throw .api(APIStatus.decode(operation: "discover /api", response: core)) }
        for version in try json(core, "discover /api")["versions"]?.arrayItems ?? [] {
            if let name = version.stringValue { versions.insert(name) }
        }
        let groups = try await send(.GET, "/apis", operation: "discover /apis")
        guard groups.status == 200 else { throw .api(APIStatus.decode(operation: "discover /apis", response: groups)) }
        for group in try json(groups, "discover /apis")["groups"]?.arrayItems ?? [] {
            for version in group["versions"]?.arrayItems ?? [] {
                if let name = version["groupVersion"]?.stringValue { versions.insert(name) }
            }
        }
        return versions
    }

    /// Older API versions with the same schema for the fields mcloud writes, tried when a cluster does not serve
    /// the GA version yet (the 1.20 test bed has neither autoscaling/v2, policy/v1 nor discovery.k8s.io/v1).
    static let compatibleVersions: [String: [String]] = [
        "autoscaling/v2|HorizontalPodAutoscaler": ["autoscaling/v2beta2"],
        "policy/v1|PodDisruptionBudget": ["policy/v1beta1"],
        "discovery.k8s.io/v1|EndpointSlice": ["discovery.k8s.io/v1beta1"],
    ]

    /// The version this cluster serves for the object: its own, or a compatible older one.
    public func servedVersion(apiVersion: String, kind: String) async throws(KubernetesError) -> String {
        if groupVersions == nil { groupVersions = try await loadGroupVersions() }
        if groupVersions?.contains(apiVersion) == true { return apiVersion }
        for older in Self.compatibleVersions["\(apiVersion)|\(kind)"] ?? [] where groupVersions?.contains(older) == true {
            return older
        }
        return apiVersion
    }

    private func objectPath(_ reference: ObjectReference) async throws(KubernetesError) -> String {
        let info = try await resource(apiVersion: reference.apiVersion, kind: reference.kind)
        return info.collectionPath(namespace: info.namespaced ? (reference.namespace.isEmpty ? connection.namespace : reference.namespace) : nil)
            + "/" + reference.name
    }

    // MARK: Objects

    /// Server-side apply as field manager `mcloud`. Applying the same object again changes nothing on the server.
    /// `force` takes over fields another manager owns (kubectl's `--force-conflicts`); never done unasked. With
    /// `dryRun` the server validates, defaults and prunes the object as it would store it, and stores nothing
    /// (`dryRun=All`); the answer is the object it would have stored.
    public func apply(_ original: JSONValue, force: Bool = false, dryRun: Bool = false) async throws(KubernetesError) -> JSONValue {
        guard var reference = ObjectReference(object: original) else {
            throw .invalidObject("an object needs apiVersion, kind and metadata.name")
        }
        var object = original
        let served = try await servedVersion(apiVersion: reference.apiVersion, kind: reference.kind)
        if served != reference.apiVersion, case .object(var pairs) = object {
            pairs = pairs.map { $0.0 == "apiVersion" ? ("apiVersion", .string(served)) : $0 }
            object = .object(pairs)
            reference.apiVersion = served
        }
        let operation = "apply \(reference)"
        var query = [("fieldManager", Self.fieldManager)]
        if force { query.append(("force", "true")) }
        if dryRun { query.append(("dryRun", "All")) }
        // Server-side apply is idempotent by design, so a throttled or dropped apply may be sent again.
        let response = try await send(
            .PATCH, try await objectPath(reference), query: query, body: Array(object.serialized(pretty: false).utf8),
            contentType: "application/apply-patch+yaml", retryable: true, operation: operation
        )
        guard response.status == 200 || response.status == 201 else { throw .api(APIStatus.decode(operation: operation, response: response)) }
        return try json(response, operation)
    }

    /// The object as it is on the server, or nil when it does not exist.
    public func get(_ reference: ObjectReference) async throws(KubernetesError) -> JSONValue? {
        let response = try await send(.GET, try await objectPath(reference), operation: "get \(reference)")
        if response.status == 404 { return nil }
        guard response.status == 200 else { throw .api(APIStatus.decode(operation: "get \(reference)", response: response)) }
        return try json(response, "get \(reference)")
    }

    /// Every object of a kind matching a label selector, in one namespace or (nil) across all of them.
    public func list(apiVersion: String, kind: String, namespace: String? = nil, labelSelector: String) async throws(KubernetesError) -> [JSONValue] {
        let info = try await resource(apiVersion: apiVersion, kind: kind)
        let operation = "list \(kind) \(labelSelector)"
        let response = try await send(.GET, info.collectionPath(namespace: namespace), query: [("labelSelector", labelSelector)], operation: operation)
        guard response.status == 200 else { throw .api(APIStatus.decode(operation: operation, response: response)) }
        // List items carry no apiVersion and kind of their own; put them back so each item is a full object.
        return (try json(response, operation)["items"]?.arrayItems ?? []).map { item in
            guard case .object(var pairs) = item else { return item }
            pairs.removeAll { $0.0 == "apiVersion" || $0.0 == "kind" }
            return .object([("apiVersion", .string(apiVersion)), ("kind", .string(kind))] + pairs)
        }
    }

    public enum Propagation: String, Sendable {
        case background = "Background"
        case foreground = "Foreground"
        case orphan = "Orphan"
    }

    /// Deletes an object; false when it was already gone.
    @discardableResult
    public func delete(_ reference: ObjectReference, propagation: Propagation = .background) async throws(KubernetesError) -> Bool {
        let body = Array(#"{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"\#(propagation.rawValue)"}"#.utf8)
        let response = try await send(.DELETE, try await objectPath(reference), body: body, contentType: "application/json", operation: "delete \(reference)")
        if response.status == 404 { return false }
        guard response.status == 200 || response.status == 202 else {
            throw .api(APIStatus.decode(operation: "delete \(reference)", response: response))
        }
        return true
    }

    /// Polls until the object is gone (finalizers done), or fails after `timeout` seconds.
    public func waitUntilGone(_ reference: ObjectReference, timeout: Double, interval: Double = 0.5) async throws(KubernetesError) {
        try await Poller(backoff: .constant(interval), timeout: timeout, clock: clock).until({ () async throws(KubernetesError) -> Bool in
            try await get(reference) == nil
        }, stopped: { stop in Self.stopped(stop) { "\(reference) still exists after \($0) s" } })
    }

    /// Deletes objects of the given kinds that carry `selector`'s labels but are not in `keep`. Only objects whose
    /// labels match every term of the selector are touched, so another application's objects never are.
    public func prune(
        kinds: [(apiVersion: String, kind: String)], selector: [String: String], keep: Set<ObjectReference>
    ) async throws(KubernetesError) -> [ObjectReference] {
        let selectorText = selector.keys.sorted().map { "\($0)=\(selector[$0] ?? "")" }.joined(separator: ",")
        var deleted: [ObjectReference] = []
        for (apiVersion, kind) in kinds {
            for object in try await list(apiVersion: apiVersion, kind: kind, labelSelector: selectorText) {
                guard let reference = ObjectReference(object: object), !keep.contains(reference) else { continue }
                let labels = object.value(at: ["metadata", "labels"])
                guard selector.allSatisfy({ labels?[$0.key]?.stringValue == $0.value }) else { continue }
                if try await delete(reference) { deleted.append(reference) }
            }
        }
        return deleted.sorted()
    }

    /// Where a Deployment's rollout stands.
    public struct RolloutStatus: Sendable, Hashable {
        public var generation: Int
        public var observedGeneration: Int
        public var desired: Int
        public var updated: Int
        public var available: Int

        public var isComplete: Bool { observedGeneration >= generation && updated == desired && available == desired }
    }

    public func rolloutStatus(namespace: String, name: String) async throws(KubernetesError) -> RolloutStatus {
        let reference = ObjectReference(apiVersion: "apps/v1", kind: "Deployment", namespace: namespace, name: name)
        guard let object = try await get(reference) else { throw .api(APIStatus(operation: "rollout status \(reference)", code: 404, reason: "NotFound", message: "no such Deployment", causes: [])) }
        return RolloutStatus(
            generation: object.value(at: ["metadata", "generation"])?.intValue ?? 0,
            observedGeneration: object.value(at: ["status", "observedGeneration"])?.intValue ?? 0,
            desired: object.value(at: ["spec", "replicas"])?.intValue ?? 1,
            updated: object.value(at: ["status", "updatedReplicas"])?.intValue ?? 0,
            available: object.value(at: ["status", "availableReplicas"])?.intValue ?? 0
        )
    }

    /// Waits for a Deployment's rollout to complete, as `kubectl rollout status` does.
    public func waitForRollout(namespace: String, name: String, timeout: Double, interval: Double = 1) async throws(KubernetesError) -> RolloutStatus {
        var last: RolloutStatus?
        return try await Poller(backoff: .constant(interval), timeout: timeout, clock: clock).poll({ () async throws(KubernetesError) -> RolloutStatus? in
            let status = try await rolloutStatus(namespace: namespace, name: name)
            last = status
            return status.isComplete ? status : nil
        }, stopped: { stop in
            Self.stopped(stop) { seconds in
                let progress = last.map { "\($0.updated) of \($0.desired) replicas updated, \($0.available) available, " } ?? ""
                return "Deployment \(namespace)/\(name): \(progress)after \(seconds) s"
            }
        })
    }

    /// A wait that ended without its answer: timed out, `message` given the seconds waited, or cancelled.
    private static func stopped(_ stop: Poller.Stop, _ message: (Double) -> String) -> KubernetesError {
        switch stop {
        case .timedOut(let seconds, _): return .timeout(message(seconds))
        case .cancelled: return .timeout("cancelled")
        }
    }
}
