public import MCloudCore
import MCloudHTTP

/// A Trove database instance.
public struct DatabaseInstance: Sendable, Hashable {
    public var id: String
    public var name: String
    public var status: String
    public var operatingStatus: String?
    public var fault: String?
    public var flavorID: String?
    public var volumeGiB: Int?
    public var datastore: String?
    public var datastoreVersion: String?
    /// Where clients reach it: the public addresses first, as another cloud reaches it there, then the private ones.
    public var addresses: [String] = []
    /// Its name in the cloud's DNS, when Trove has Designate to give it one.
    public var hostname: String? = nil
    /// The addresses Trove admits to it (`access.allowed_cidrs`); empty admits every address.
    public var allowedCIDRs: [String] = []
    /// Whether its port has a public address (`access.is_public`).
    public var isPublic: Bool = false

    static func decode(_ item: JSONValue) -> DatabaseInstance? {
        guard let id = item["id"]?.stringValue else { return nil }
        return DatabaseInstance(
            id: id, name: item["name"]?.stringValue ?? "", status: item["status"]?.stringValue ?? "UNKNOWN",
            operatingStatus: item["operating_status"]?.stringValue, fault: item["fault"]?["message"]?.stringValue,
            flavorID: item["flavor"]?["id"]?.stringValue, volumeGiB: item["volume"]?["size"]?.intValue,
            datastore: item["datastore"]?["type"]?.stringValue, datastoreVersion: item["datastore"]?["version"]?.stringValue,
            addresses: addresses(item), hostname: item["hostname"]?.stringValue,
            allowedCIDRs: (item["access"]?["allowed_cidrs"]?.arrayItems ?? []).compactMap(\.stringValue),
            isPublic: item["access"]?["is_public"] == .bool(true)
        )
    }

    /// Trove since Victoria lists `addresses` with their `type`; before, only the untyped `ip` list.
    private static func addresses(_ item: JSONValue) -> [String] {
        let typed = (item["addresses"]?.arrayItems ?? []).compactMap { entry in
            entry["address"]?.stringValue.map { (address: $0, isPublic: entry["type"]?.stringValue == "public") }
        }
        guard !typed.isEmpty else { return (item["ip"]?.arrayItems ?? []).compactMap(\.stringValue) }
        return typed.filter(\.isPublic).map(\.address) + typed.filter { !$0.isPublic }.map(\.address)
    }
}

/// What to create: a datastore version on a Nova flavor with a Cinder volume.
public struct DatabaseRequest: Sendable, Hashable {
    public var name: String
    public var flavorID: String
    public var volumeGiB: Int
    public var datastore: String
    public var version: String
    public var databases: [String]
    /// Nil lets Trove choose.
    public var availabilityZone: String?

    public init(name: String, flavorID: String, volumeGiB: Int, datastore: String, version: String, databases: [String] = [], availabilityZone: String? = nil) {
        self.availabilityZone = availabilityZone
        self.name = name
        self.flavorID = flavorID
        self.volumeGiB = volumeGiB
        self.datastore = datastore
        self.version = version
        self.databases = databases
    }

    var body: JSONValue {
        var instance: [(String, JSONValue)] = [
            ("name", .string(name)), ("flavorRef", .string(flavorID)), ("volume", .object([("size", .int(volumeGiB))])),
            ("datastore", .object([("type", .string(datastore)), ("version", .string(version))])),
        ]
        if !databases.isEmpty { instance.append(("databases", .array(databases.map { .object([("name", .string($0))]) }))) }
        if let availabilityZone { instance.append(("availability_zone", .string(availabilityZone))) }
        return .object([("instance", .object(instance))])
    }
}

/// Trove (database v1.0). Every URL comes from the catalog: Trove's own links say https even on plain HTTP.
public struct TroveClient: Sendable {
    public let session: OpenStackSession
    public let poller: Poller

    public init(session: OpenStackSession, poller: Poller = .openStack()) {
        self.session = session
        self.poller = poller
    }

    /// Datastore name to its version names.
    public func datastores() async throws(OpenStackError) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for item in try await session.json("database", .GET, "/datastores", operation: "list datastores")["datastores"]?.arrayItems ?? [] {
            guard let name = item["name"]?.stringValue else { continue }
            result[name] = item["versions"]?.arrayItems.compactMap { $0["name"]?.stringValue } ?? []
        }
        return result
    }

    /// Checks that the cloud offers the datastore version, naming what it offers when it does not.
    public func checkDatastore(_ datastore: String, version: String) async throws(OpenStackError) {
        let offered = try await datastores()
        guard let versions = offered[datastore] else {
            throw .invalidResponse("the cloud has no datastore \(datastore) (it offers \(offered.keys.sorted().joined(separator: ", ")))")
        }
        guard versions.contains(version) else {
            throw .invalidResponse("datastore \(datastore) has no version \(version) (it offers \(versions.sorted().joined(separator: ", ")))")
        }
    }

    public func createInstance(_ request: DatabaseRequest) async throws(OpenStackError) -> DatabaseInstance {
        let answer = try await session.json("database", .POST, "/instances", body: request.body, expect: [200, 202], retryable: false, operation: "create database \(request.name)")
        guard let instance = answer["instance"].flatMap(DatabaseInstance.decode) else { throw .invalidResponse("create database \(request.name): no instance in the answer") }
        return instance
    }

    /// Creates an instance under a name no other live instance of the project has, never two of it. Trove takes no
    /// request token, so an earlier attempt is known by its name alone:
    /// - a 5xx answer (Trove's quota-row race on a project's first concurrent creates) ends the request in Trove: the
    ///   name is looked up and, when it is not there, the create is sent again;
    /// - no complete answer (a stall, the deadline, a dropped connection) can leave the request running in Trove, which
    ///   makes the instance only when it finishes: on a loaded bed an answer came 33 s after its request, 13 s after
    ///   the client had given up, and sending it again had made a second instance. So the name is watched until the
    ///   instance appears or `settle` seconds pass, and the create is never sent again.
    public func createInstanceOnce(_ request: DatabaseRequest, attempts: Int = 3, retryDelay: Double = 1, settle: Double = 120) async throws(OpenStackError) -> DatabaseInstance {
        var attempt = 1
        while true {
            do throws(OpenStackError) {
                return try await createInstance(request)
            } catch {
                if case .transport = error {
                    return try await poller.watchForUnansweredCreate(
                        after: error, missing: "database named \(request.name)",
                        later: "Trove may still make it: the next apply adopts it by its name", settle: settle
                    ) { () async throws(OpenStackError) -> DatabaseInstance? in
                        try await self.instance(named: request.name)
                    }
                }
                guard attempt < attempts, error.isUncertain else { throw error }
            }
            do throws(CancellationError) {
                try await poller.clock.sleep(seconds: retryDelay * Double(attempt))
            } catch {
                throw .transport(operation: "create database \(request.name)", .cancelled)
            }
            if let made = try await instance(named: request.name) { return made }
            attempt += 1
        }
    }

    /// The live instance (neither SHUTDOWN nor DELETED) of that name, if any.
    public func instance(named name: String) async throws(OpenStackError) -> DatabaseInstance? {
        try await instances().first { $0.name == name && !["SHUTDOWN", "DELETED"].contains($0.status) }
    }

    public func instance(_ id: String) async throws(OpenStackError) -> DatabaseInstance {
        let answer = try await session.json("database", .GET, "/instances/\(id)", operation: "get database \(id)")
        guard let instance = answer["instance"].flatMap(DatabaseInstance.decode) else { throw .invalidResponse("get database \(id): no instance in the answer") }
        return instance
    }

    /// Waits for ACTIVE with a HEALTHY (or not yet reported) operating status; ERROR ends the wait with the fault.
    public func waitUntilActive(_ id: String) async throws(OpenStackError) -> DatabaseInstance {
        try await poller.poll("database \(id) to become ACTIVE") { () async throws(OpenStackError) -> DatabaseInstance? in
            let instance = try await self.instance(id)
            if instance.status == "ERROR" {
                throw .resourceFailed("database \(instance.name) (\(id)) is in ERROR: \(instance.fault ?? "Trove gave no fault message")")
            }
            let healthy = instance.operatingStatus.map { $0.isEmpty || $0 == "HEALTHY" } ?? true
            return instance.status == "ACTIVE" && healthy ? instance : nil
        }
    }

    /// Every instance of the project, all pages.
    public func instances() async throws(OpenStackError) -> [DatabaseInstance] {
        // Trove gives at most its `instances_page_size` (20 by default) whatever the limit asked.
        try await PageLinks.collect("list databases", links: "links", id: \.id) { marker throws(OpenStackError) in
            let page = "/instances/detail?limit=100" + (marker.map { "&marker=\($0)" } ?? "")
            let answer = try await session.json("database", .GET, page, operation: "list databases")
            return (answer, answer["instances"]?.arrayItems.compactMap(DatabaseInstance.decode) ?? [])
        }
    }

    /// Moves the instance to another flavor, then waits for it to be ACTIVE again.
    public func resize(_ id: String, flavorID: String) async throws(OpenStackError) {
        try await action(id, .object([("resize", .object([("flavorRef", .string(flavorID))]))]), "resize database \(id) to flavor \(flavorID)")
    }

    /// Grows the data volume, then waits for the instance to be ACTIVE again.
    public func resize(_ id: String, volumeGiB: Int) async throws(OpenStackError) {
        try await action(id, .object([("resize", .object([("volume", .object([("size", .int(volumeGiB))]))]))]), "grow the volume of database \(id) to \(volumeGiB) GiB")
    }

    private func action(_ id: String, _ body: JSONValue, _ operation: String) async throws(OpenStackError) {
        _ = try await session.json("database", .POST, "/instances/\(id)/action", body: body, expect: [202], retryable: false, operation: operation)
        // The action starts asynchronously: wait for Trove to leave ACTIVE before waiting for it to come back.
        _ = try await poller.poll("database \(id) to start: \(operation)") { () async throws(OpenStackError) -> Bool? in
            try await self.instance(id).status != "ACTIVE" ? true : nil
        }
        _ = try await waitUntilActive(id)
    }

    public func deleteInstance(_ id: String, wait: Bool = true) async throws(OpenStackError) {
        _ = try await session.json("database", .DELETE, "/instances/\(id)", expect: [202, 204, 404], operation: "delete database \(id)")
        if wait { try await session.waitUntilGone("database", "/instances/\(id)", poller: poller, what: "database \(id)") }
    }
}
