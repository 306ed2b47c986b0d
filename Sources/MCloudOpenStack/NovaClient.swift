import Foundation
public import MCloudCore
public import MCloudHTTP

/// Nova (compute) at microversion 2.52 or later: tags given at create (2.52) make every server findable by
/// its owner in the same request that makes it, and `"networks": "none"` (2.37) boots without a port.
public actor NovaClient {
    public static let microversion = Microversion(2, 52)
    /// The most user data Nova takes: characters of its base64 (the API's schema; the bed's Nova refused more with
    /// "Invalid input for field/attribute user_data").
    public static let userDataLimit = 65_535

    public nonisolated let session: OpenStackSession
    private let poller: Poller
    private let sleeper: any Sleeper
    private var negotiated: Microversion?
    /// The `limit` each page of a listing asks for; Nova may give fewer (its `max_limit`) and links the next page.
    private let pageSize: Int

    public init(session: OpenStackSession, poller: Poller = .openStack(), sleeper: any Sleeper = TaskSleeper(), pageSize: Int = 100) {
        self.session = session
        self.pageSize = pageSize
        self.poller = poller
        self.sleeper = sleeper
    }

    /// Reads Nova's version document once and checks it serves `microversion`.
    public func negotiate() async throws(OpenStackError) -> Microversion {
        if let negotiated { return negotiated }
        let document = try await session.json("compute", .GET, "/", operation: "read the compute version document")
        guard let range = Microversion.range(in: document) else {
            throw .invalidResponse("the compute API announces no microversions; mcloud needs \(Self.microversion)")
        }
        guard range.contains(Self.microversion) else {
            throw .invalidResponse("the compute API serves microversions \(range.lowerBound) to \(range.upperBound); mcloud needs \(Self.microversion)")
        }
        negotiated = Self.microversion
        return Self.microversion
    }

    private func headers() async throws(OpenStackError) -> [(name: String, value: String)] {
        let version = try await negotiate()
        return Self.versionHeaders(version)
    }

    static func versionHeaders(_ version: Microversion) -> [(name: String, value: String)] {
        [("OpenStack-API-Version", "compute \(version)"), ("X-OpenStack-Nova-API-Version", "\(version)")]
    }

    private func call(
        _ method: HTTPRequest.Method, _ path: String, body: JSONValue? = nil, expect: Set<Int> = [200], retryable: Bool? = nil, operation: String
    ) async throws(OpenStackError) -> JSONValue {
        try await session.json("compute", method, path, body: body, headers: try await headers(), expect: expect, retryable: retryable, operation: operation)
    }

    // MARK: Flavors

    public func flavors() async throws(OpenStackError) -> [Flavor] {
        try await call(.GET, "/flavors/detail", operation: "list flavors")["flavors"]?.arrayItems.compactMap(Flavor.decode) ?? []
    }

    public func smallestFlavor(vcpus: Int, ramMiB: Int) async throws(OpenStackError) -> Flavor {
        try Flavor.smallest(fitting: vcpus, ramMiB: ramMiB, in: try await flavors())
    }

    // MARK: Servers

    /// Boots a server. A POST whose answer is lost is not sent again blindly: the server of that name carrying this
    /// call's request tag (a tag, and metadata `request`) is looked up first and adopted, so a retry never makes a
    /// second VM. After a 5xx answer Nova is done with the request, so a server not found is asked for again; after no
    /// complete answer (a stall, the deadline, a dropped connection) Nova may still be working on it, so the server is
    /// watched for until `settle` seconds pass and never asked for again (as Trove's creates, `TroveClient.createInstanceOnce`).
    public func createServer(_ request: ServerRequest, attempts: Int = 3, retryDelay: Double = 1, settle: Double = 120) async throws(OpenStackError) -> Server {
        let requestTag = ResourceMarks.tag("request:\(UUID().uuidString.lowercased())")
        let operation = "create server \(request.name)"
        var failure: OpenStackError = .invalidResponse("\(operation): no attempt made")
        for attempt in 1...max(1, attempts) {
            if attempt > 1 {
                do {
                    try await sleeper.sleep(seconds: retryDelay * Double(attempt - 1))
                } catch {
                    throw .transport(operation: operation, error)
                }
                if let adopted = try await findCreated(name: request.name, requestTag: requestTag) { return adopted }
            }
            do throws(OpenStackError) {
                let answer = try await call(.POST, "/servers", body: request.body(requestTag: requestTag), expect: [202], retryable: false, operation: operation)
                guard let id = answer["server"]?["id"]?.stringValue else { throw .invalidResponse("\(operation): the answer has no server id") }
                return try await server(id)
            } catch {
                if case .transport = error {
                    return try await poller.watchForUnansweredCreate(
                        after: error, missing: "server named \(request.name) with this request's tag",
                        later: "Nova may still make it: the next plan finds it by its tags", settle: settle
                    ) { () async throws(OpenStackError) -> Server? in
                        try await self.findCreated(name: request.name, requestTag: requestTag)
                    }
                }
                guard Self.mayHaveCreated(error) else { throw error }
                failure = error
            }
        }
        throw failure
    }

    /// The server an earlier attempt of one create call made. Until a server is scheduled Nova lists it from its
    /// build request, which a tag filter does not match; the name filter does, and the request tag is then also
    /// in its metadata.
    private func findCreated(name: String, requestTag: String) async throws(OpenStackError) -> Server? {
        // Nova's name filter is a regular expression; the exact match is checked here.
        return try await listServers(query: "name=\(Self.escape(name))").first {
            $0.name == name && ($0.tags.contains(requestTag) || $0.metadata["request"] == requestTag)
        }
    }

    /// Errors after which the server may or may not exist.
    public static func mayHaveCreated(_ error: OpenStackError) -> Bool {
        error.isUncertain
    }

    public func server(_ id: String) async throws(OpenStackError) -> Server {
        let answer = try await call(.GET, "/servers/\(id)", operation: "get server \(id)")
        guard let server = answer["server"].flatMap(Server.decode) else { throw .invalidResponse("get server \(id): no server in the answer") }
        return server
    }

    /// Waits for ACTIVE; ERROR ends the wait with the server's fault message.
    public func waitUntilActive(_ id: String) async throws(OpenStackError) -> Server {
        try await poller.poll("server \(id) to become ACTIVE") { () async throws(OpenStackError) -> Server? in
            let server = try await self.server(id)
            if server.status == "ERROR" {
                throw .resourceFailed("server \(server.name) (\(id)) is in ERROR: \(server.fault ?? "Nova gave no fault message")")
            }
            return server.status == "ACTIVE" ? server : nil
        }
    }

    /// Shuts an ACTIVE server down cleanly (`os-stop`: Nova asks the guest to power off and waits its
    /// `shutdown_timeout`, 60 s by default, before it forces it), then waits for SHUTOFF. A server gone, or in any
    /// other state, is left as it is: there is nothing running to stop.
    public func stopServer(_ id: String) async throws(OpenStackError) {
        let current: Server
        do throws(OpenStackError) {
            current = try await server(id)
        } catch {
            if error.fault?.status == 404 { return }
            throw error
        }
        guard current.status == "ACTIVE" else { return }
        _ = try await call(.POST, "/servers/\(id)/action", body: .object([("os-stop", .null)]), expect: [202, 404, 409], operation: "stop server \(id)")
        _ = try await poller.poll("server \(id) to shut down") { () async throws(OpenStackError) -> Bool? in
            do throws(OpenStackError) {
                return try await self.server(id).status == "ACTIVE" ? nil : true
            } catch {
                if error.fault?.status == 404 { return true }
                throw error
            }
        }
    }

    /// Deletes a server (already gone is fine) and, with `wait`, polls until Nova answers 404.
    public func deleteServer(_ id: String, wait: Bool = true) async throws(OpenStackError) {
        _ = try await call(.DELETE, "/servers/\(id)", expect: [204, 404], operation: "delete server \(id)")
        guard wait else { return }
        try await session.waitUntilGone("compute", "/servers/\(id)", headers: try await headers(), poller: poller, what: "server \(id)")
    }

    /// Servers carrying every tag, all pages (Nova filters by tag on the server side).
    public func findServers(tags: [String]) async throws(OpenStackError) -> [Server] {
        try await listServers(query: "tags=" + tags.map(Self.escape).joined(separator: ","))
    }

    /// Servers carrying `tag` whose metadata holds every pair given (filtered here: Nova's list has no metadata filter).
    public func findServers(tagged tag: String, metadata: [String: String]) async throws(OpenStackError) -> [Server] {
        try await listServers(query: "tags=\(Self.escape(tag))").filter { server in
            metadata.allSatisfy { server.metadata[$0.key] == $0.value }
        }
    }

    private func listServers(query: String) async throws(OpenStackError) -> [Server] {
        try await PageLinks.collect("list servers", links: "servers_links", id: \.id) { marker throws(OpenStackError) in
            let page = "/servers/detail?\(query)&limit=\(pageSize)" + (marker.map { "&marker=\($0)" } ?? "")
            let answer = try await call(.GET, page, operation: "list servers")
            return (answer, answer["servers"]?.arrayItems.compactMap(Server.decode) ?? [])
        }
    }

    static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    public static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    /// Adds or replaces metadata items; other items stay.
    public func setMetadata(_ id: String, _ items: [String: String]) async throws(OpenStackError) {
        let body: JSONValue = .object([("metadata", .object(items.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))])
        _ = try await call(.POST, "/servers/\(id)/metadata", body: body, operation: "set metadata of server \(id)")
    }

    /// Removes one metadata item; a missing one is fine.
    public func deleteMetadata(_ id: String, key: String) async throws(OpenStackError) {
        _ = try await call(.DELETE, "/servers/\(id)/metadata/\(Self.escape(key))", expect: [204, 404], operation: "delete metadata \(key) of server \(id)")
    }

    /// Resizes to another flavor and confirms once Nova reaches VERIFY_RESIZE, so the server ends ACTIVE.
    public func resize(_ id: String, flavorID: String) async throws(OpenStackError) {
        let body: JSONValue = .object([("resize", .object([("flavorRef", .string(flavorID))]))])
        _ = try await call(.POST, "/servers/\(id)/action", body: body, expect: [202], retryable: false, operation: "resize server \(id)")
        _ = try await poller.poll("server \(id) to reach VERIFY_RESIZE") { () async throws(OpenStackError) -> Server? in
            let server = try await self.server(id)
            if server.status == "ERROR" { throw .resourceFailed("resizing server \(server.name) (\(id)) failed: \(server.fault ?? "Nova gave no fault message")") }
            return server.status == "VERIFY_RESIZE" ? server : nil
        }
        _ = try await call(.POST, "/servers/\(id)/action", body: .object([("confirmResize", .null)]), expect: [204], operation: "confirm the resize of server \(id)")
        _ = try await waitUntilActive(id)
    }

    /// Adds a security group (by name or id) to every port of the server.
    public func addSecurityGroup(_ id: String, group: String) async throws(OpenStackError) {
        let body: JSONValue = .object([("addSecurityGroup", .object([("name", .string(group))]))])
        _ = try await call(.POST, "/servers/\(id)/action", body: body, expect: [202], operation: "add security group \(group) to server \(id)")
    }

    /// The names of the compute availability zones that are up.
    public func availabilityZones() async throws(OpenStackError) -> [String] {
        let answer = try await call(.GET, "/os-availability-zone", operation: "list compute availability zones")
        return answer["availabilityZoneInfo"]?.arrayItems.compactMap { zone in
            zone["zoneState"]?["available"] == .bool(true) ? zone["zoneName"]?.stringValue : nil
        } ?? []
    }

    // MARK: Volumes

    public func attachVolume(_ volumeID: String, to serverID: String) async throws(OpenStackError) {
        _ = try await call(
            .POST, "/servers/\(serverID)/os-volume_attachments", body: .object([("volumeAttachment", .object([("volumeId", .string(volumeID))]))]),
            operation: "attach volume \(volumeID) to server \(serverID)"
        )
    }

    public func detachVolume(_ volumeID: String, from serverID: String) async throws(OpenStackError) {
        _ = try await call(.DELETE, "/servers/\(serverID)/os-volume_attachments/\(volumeID)", expect: [202, 404], operation: "detach volume \(volumeID) from server \(serverID)")
    }
}
