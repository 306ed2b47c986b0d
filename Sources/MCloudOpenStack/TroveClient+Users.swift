import Foundation
import MCloudCore
import MCloudHTTP

/// A user of a Trove instance, as its users API lists it: Trove names a user by name and host together.
public struct DatabaseUser: Sendable, Hashable {
    public var name: String
    /// The MySQL host pattern the user may connect from; `%` for any.
    public var host: String
    /// The databases it has access to.
    public var databases: [String]

    public init(name: String, host: String = "%", databases: [String]) {
        self.name = name
        self.host = host
        self.databases = databases
    }

    /// `name@host`, as the users API's paths and markers name a user.
    public var key: String { "\(name)@\(host)" }

    static func decode(_ item: JSONValue) -> DatabaseUser? {
        guard let name = item["name"]?.stringValue else { return nil }
        return DatabaseUser(
            name: name, host: item["host"]?.stringValue ?? "%", databases: (item["databases"]?.arrayItems ?? []).compactMap { $0["name"]?.stringValue }
        )
    }
}

/// Trove's database and user API, which Trove serves for its `mysql` datastore only (the Zed manual, "Manage
/// databases and users"), and the instance's `allowed_cidrs`, which Trove enforces in the security group of the
/// instance's port (docs/connectivity.md, "Managed databases"). A password goes only into a request's body: no
/// path, log line or error message names it (`scrubbing`).
extension TroveClient {
    /// The databases of the instance, all pages.
    public func databases(_ id: String) async throws(OpenStackError) -> [String] {
        try await PageLinks.collect("list the databases of \(id)", links: "links", id: { $0 }) { marker throws(OpenStackError) in
            let answer = try await session.json("database", .GET, "/instances/\(id)/databases" + Self.page(marker), operation: "list the databases of \(id)")
            return (answer, (answer["databases"]?.arrayItems ?? []).compactMap { $0["name"]?.stringValue })
        }
    }

    public func createDatabases(_ id: String, _ names: [String]) async throws(OpenStackError) {
        let body = JSONValue.object([("databases", .array(names.map { .object([("name", .string($0))]) }))])
        _ = try await session.json("database", .POST, "/instances/\(id)/databases", body: body, expect: [202], operation: "create databases \(names.joined(separator: ", ")) on \(id)")
    }

    /// The users of the instance, all pages; Trove's marker is the last user's `name@host`.
    public func users(_ id: String) async throws(OpenStackError) -> [DatabaseUser] {
        try await PageLinks.collect("list the users of \(id)", links: "links", id: \.key) { marker throws(OpenStackError) in
            let answer = try await session.json("database", .GET, "/instances/\(id)/users" + Self.page(marker), operation: "list the users of \(id)")
            return (answer, (answer["users"]?.arrayItems ?? []).compactMap(DatabaseUser.decode))
        }
    }

    /// Creates users with their passwords and their access to the databases each names.
    public func createUsers(_ id: String, _ users: [(user: DatabaseUser, password: String)]) async throws(OpenStackError) {
        let body = JSONValue.object([("users", .array(users.map { Self.userBody($0.user, password: $0.password, databases: true) }))])
        try await scrubbing(users.map(\.password)) { () async throws(OpenStackError) in
            _ = try await session.json(
                "database", .POST, "/instances/\(id)/users", body: body, expect: [202], operation: "create users \(users.map(\.user.key).joined(separator: ", ")) on \(id)"
            )
        }
    }

    /// Sets the users' passwords (Trove's "change passwords").
    public func changePasswords(_ id: String, _ users: [(user: DatabaseUser, password: String)]) async throws(OpenStackError) {
        let body = JSONValue.object([("users", .array(users.map { Self.userBody($0.user, password: $0.password, databases: false) }))])
        try await scrubbing(users.map(\.password)) { () async throws(OpenStackError) in
            _ = try await session.json(
                "database", .PUT, "/instances/\(id)/users", body: body, expect: [202], operation: "set the passwords of \(users.map(\.user.key).joined(separator: ", ")) on \(id)"
            )
        }
    }

    /// Gives the user access to the databases (Trove's "grant").
    public func grant(_ id: String, _ user: DatabaseUser, databases: [String]) async throws(OpenStackError) {
        let body = JSONValue.object([("databases", .array(databases.map { .object([("name", .string($0))]) }))])
        _ = try await session.json("database", .PUT, "/instances/\(id)/users/\(Self.path(user))/databases", body: body, expect: [202], operation: "grant \(user.key) \(databases.joined(separator: ", ")) on \(id)")
    }

    /// Takes the user's access to a database away (Trove's "revoke").
    public func revoke(_ id: String, _ user: DatabaseUser, database: String) async throws(OpenStackError) {
        _ = try await session.json(
            "database", .DELETE, "/instances/\(id)/users/\(Self.path(user))/databases/\(database)", expect: [202, 404], operation: "revoke \(database) from \(user.key) on \(id)"
        )
    }

    public func deleteUser(_ id: String, _ user: DatabaseUser) async throws(OpenStackError) {
        _ = try await session.json("database", .DELETE, "/instances/\(id)/users/\(Self.path(user))", expect: [202, 404], operation: "delete user \(user.key) on \(id)")
    }

    /// The addresses the instance admits (`access.allowed_cidrs`, IPv4 only); Trove admits every address when the list
    /// is empty. `isPublic` is sent as it is, as Trove takes a missing one for `false` and would take the instance's
    /// public address away. Trove's task manager changes the port's security group after answering, and reports the
    /// instance ACTIVE meanwhile (its UPDATING task has no status of its own), so the change is waited for by reading
    /// the instance's `allowed_cidrs` back; ERROR (Trove's UPDATING_ERROR_ACCESS) ends the wait. The guest's health is
    /// not waited for: an access change does not touch it.
    public func setAllowedCIDRs(_ id: String, _ cidrs: [String], isPublic: Bool) async throws(OpenStackError) {
        let access = JSONValue.object([("is_public", .bool(isPublic)), ("allowed_cidrs", .array(cidrs.map(JSONValue.string)))])
        let body = JSONValue.object([("instance", .object([("access", access)]))])
        let operation = "admit \(cidrs.joined(separator: ", ")) to database \(id)"
        _ = try await session.json("database", .PUT, "/instances/\(id)", body: body, expect: [202], retryable: false, operation: operation)
        _ = try await poller.poll("database \(id) to admit \(cidrs.joined(separator: ", "))") { () async throws(OpenStackError) -> Bool? in
            let instance = try await self.instance(id)
            if instance.status == "ERROR" { throw .resourceFailed("\(operation): the instance is in ERROR: \(instance.fault ?? "Trove gave no fault message")") }
            return instance.allowedCIDRs.sorted() == cidrs.sorted() ? true : nil
        }
    }

    /// A user in a path: `name@host`, the host's `%` percent-encoded.
    private static func path(_ user: DatabaseUser) -> String {
        "\(user.name)@\(user.host.replacingOccurrences(of: "%", with: "%25"))"
    }

    private static func page(_ marker: String?) -> String {
        "?limit=100" + (marker.map { "&marker=\($0.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "@", with: "%40"))" } ?? "")
    }

    private static func userBody(_ user: DatabaseUser, password: String, databases: Bool) -> JSONValue {
        var fields: [(String, JSONValue)] = [("name", .string(user.name)), ("host", .string(user.host)), ("password", .string(password))]
        if databases { fields.append(("databases", .array(user.databases.map { .object([("name", .string($0))]) }))) }
        return .object(fields)
    }

    /// Runs `body`; an error whose text holds one of `secrets` (a validation message may quote the request) has it
    /// replaced by the redaction marker.
    private func scrubbing(_ secrets: [String], _ body: () async throws(OpenStackError) -> Void) async throws(OpenStackError) {
        do {
            try await body()
        } catch {
            throw error.scrubbing(secrets)
        }
    }
}

extension OpenStackError {
    /// The same error with each of `secrets` in its messages replaced by `(sensitive value)`.
    public func scrubbing(_ secrets: [String]) -> OpenStackError {
        func scrub(_ text: String) -> String {
            secrets.filter { !$0.isEmpty }.reduce(text) { $0.replacingOccurrences(of: $1, with: "(sensitive value)") }
        }
        switch self {
        case .api(var fault):
            fault.message = scrub(fault.message)
            return .api(fault)
        case .capacity(var fault):
            fault.message = scrub(fault.message)
            return .capacity(fault)
        case .resourceFailed(let message): return .resourceFailed(scrub(message))
        case .invalidResponse(let message): return .invalidResponse(scrub(message))
        default: return self
        }
    }
}
