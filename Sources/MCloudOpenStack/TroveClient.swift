import MCloudCore

/// A Trove database instance.
public struct DatabaseInstance: Sendable, Hashable {
    public var id: String
    public var name: String
    public var status: String
    public var operatingStatus: String?
    public var fault: String?

    static func decode(_ item: JSONValue) -> DatabaseInstance? {
        guard let id = item["id"]?.stringValue else { return nil }
        return DatabaseInstance(
            id: id, name: item["name"]?.stringValue ?? "", status: item["status"]?.stringValue ?? "UNKNOWN",
            operatingStatus: item["operating_status"]?.stringValue, fault: item["fault"]?["message"]?.stringValue
        )
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

    public init(name: String, flavorID: String, volumeGiB: Int, datastore: String, version: String, databases: [String] = []) {
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
        return .object([("instance", .object(instance))])
    }
}

/// Trove (database v1.0). Every URL comes from the catalog: Trove's own links say https even on plain HTTP.
public struct TroveClient: Sendable {
    public let session: OpenStackSession
    let poller: Poller

    public init(session: OpenStackSession, poller: Poller = Poller()) {
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

    public func deleteInstance(_ id: String, wait: Bool = true) async throws(OpenStackError) {
        _ = try await session.json("database", .DELETE, "/instances/\(id)", expect: [202, 204, 404], operation: "delete database \(id)")
        if wait { try await session.waitUntilGone("database", "/instances/\(id)", poller: poller, what: "database \(id)") }
    }
}
