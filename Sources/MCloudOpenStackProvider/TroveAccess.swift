import MCloudCore
import MCloudDatabaseEngines
import MCloudOpenStack
import MCloudProvider
import MCloudSecrets

/// A Trove instance's `spec.access` made real through Trove's API (docs/connectivity.md, "Managed databases"): per
/// client a database of its own and a user (host `%`) with access to it alone, whose password is derived from the
/// operator's age identity as a database VM client's is (`ClientCredential`), so the connection Secret the Kubernetes
/// provider writes opens it; and the instance's `allowed_cidrs`, the union of the clients' CIDRs, as Trove's user
/// hosts take no CIDR (its schema allows `%`, names and addresses only). A user of a client no longer listed is
/// deleted; its database is kept, as dropping it would lose the data.
struct TroveAccess: Sendable {
    /// Trove's API schema for a user's name (MySQL 5.6's limit, which Trove keeps for every MySQL version).
    static let maximumUserName = 16

    let environment: [String: String]

    /// What keeps the body's access from being delivered, at plan time: Trove's user API serves its `mysql`
    /// datastore only; the names must be as rendering writes them and fit Trove's schema; the passwords need the
    /// operator's age identity.
    static func problems(_ body: ResourceBody, environment: [String: String]) -> [String] {
        guard let access = body.databaseAccess, !access.clients.isEmpty else { return [] }
        let engine = body.string("engine") ?? ""
        guard ManagedAccess.makesUsers(api: .openstack, engine: Engine(named: engine)) else {
            return ["spec.access: Trove's user API serves only its mysql datastore, not \(engine): its clients cannot be given users"]
        }
        var problems = ServerAccess.problems(engine: engine, access: access, environment: environment)
        for client in access.clients {
            if client.user.count > maximumUserName {
                problems.append("spec.access: \"\(client.user)\" of \(client.service) is longer than the \(maximumUserName) characters Trove allows a user's name")
            }
            for cidr in client.cidrs where cidr.contains(":") {
                problems.append("spec.access: \(cidr) of \(client.service) is an IPv6 network, and Trove admits IPv4 networks only (allowed_cidrs)")
            }
        }
        return problems
    }

    /// The access the instance has, as a body states it: each client of `wanted` whose user exists with host `%` and
    /// access to its database, with those of its CIDRs the instance admits. Nil when `wanted` is.
    static func observed(_ wanted: DatabaseAccess?, users: [DatabaseUser], allowedCIDRs: [String]) -> DatabaseAccess? {
        guard var access = wanted else { return nil }
        let admitted = Set(allowedCIDRs)
        access.clients = access.clients.compactMap { client in
            guard users.contains(where: { $0.name == client.user && $0.host == "%" && $0.databases.contains(client.database) }) else { return nil }
            var found = client
            found.cidrs = client.cidrs.filter(admitted.contains)
            return found
        }
        return access
    }

    /// Makes the instance's users, databases and admitted addresses those of `wanted`, deleting the users of clients
    /// `recorded` had and `wanted` has not; every wanted user's password is set again, so one changed outside mcloud is
    /// restored. Waits for Trove's guest to list every user with its database.
    func apply(_ instance: DatabaseInstance, application: String, wanted: DatabaseAccess?, recorded: DatabaseAccess?, trove: TroveClient) async throws(OpenStackError) {
        let clients = wanted?.clients ?? []
        let cidrs = Array(Set(clients.flatMap(\.cidrs))).sorted()
        if !cidrs.isEmpty, instance.allowedCIDRs.sorted() != cidrs {
            try await trove.setAllowedCIDRs(instance.id, cidrs, isPublic: instance.isPublic)
        }
        let databases = Set(try await trove.databases(instance.id))
        let missingDatabases = Array(Set(clients.map(\.database)).subtracting(databases)).sorted()
        if !missingDatabases.isEmpty { try await trove.createDatabases(instance.id, missingDatabases) }

        let users = try await trove.users(instance.id)
        let passwords = try passwords(clients, cell: wanted?.cell ?? "", application: application)
        var created: [(user: DatabaseUser, password: String)] = []
        var changed: [(user: DatabaseUser, password: String)] = []
        for (client, password) in zip(clients, passwords) {
            let user = DatabaseUser(name: client.user, databases: [client.database])
            guard let existing = users.first(where: { $0.key == user.key }) else {
                created.append((user, password))
                continue
            }
            changed.append((user, password))
            if !existing.databases.contains(client.database) { try await trove.grant(instance.id, user, databases: [client.database]) }
            for other in existing.databases where other != client.database { try await trove.revoke(instance.id, user, database: other) }
        }
        if !created.isEmpty { try await trove.createUsers(instance.id, created) }
        if !changed.isEmpty { try await trove.changePasswords(instance.id, changed) }
        let kept = Set(clients.map(\.user))
        for client in recorded?.clients ?? [] where !kept.contains(client.user) {
            try await trove.deleteUser(instance.id, DatabaseUser(name: client.user, databases: []))
        }
        try await waitForUsers(instance.id, clients, trove: trove)
    }

    /// Trove's guest makes users after its API has answered; the list is read until each is there with its database.
    private func waitForUsers(_ id: String, _ clients: [DatabaseAccess.Client], trove: TroveClient) async throws(OpenStackError) {
        guard !clients.isEmpty else { return }
        _ = try await trove.poller.poll("the users of database \(id) to be made") { () async throws(OpenStackError) -> Bool? in
            let users = try await trove.users(id)
            let made = clients.allSatisfy { client in users.contains { $0.name == client.user && $0.host == "%" && $0.databases.contains(client.database) } }
            return made ? true : nil
        }
    }

    /// The clients' derived passwords; none to derive, no identity read: removing the last client needs none, as
    /// plan asks for none then.
    func passwords(_ clients: [DatabaseAccess.Client], cell: String, application: String) throws(OpenStackError) -> [String] {
        guard !clients.isEmpty else { return [] }
        do {
            let root = SecretRoot(identity: try AgeKeyFile.load(environment: environment))
            return try clients.map { client throws(SecretsError) in
                try ClientCredential(root: root, application: application, cell: cell, service: client.service).password.value
            }
        } catch {
            throw .resourceFailed("the users' passwords of \(cell) are derived from the operator's age identity, and \(error.description)")
        }
    }
}
