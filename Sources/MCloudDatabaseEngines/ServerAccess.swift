public import MCloudCore
public import MCloudSecrets

/// What a database VM is given so that remote clients reach it only over verified TLS, each with its own password:
/// the application's CA, the server's certificate and key, and per dependent service its user, database, source
/// CIDRs and the engine's verifier of its password. Derived at create time from the operator's root, never stored in
/// the plan: the body says only names (`DatabaseAccess`). The clients' passwords are not in it, only verifiers.
public struct ServerAccess: Sendable {
    /// One client as the body names it, with the engine's stored form of its password (`PasswordVerifier`), never
    /// the password.
    public struct User: Sendable, Hashable {
        public var client: DatabaseAccess.Client
        public var verifier: String

        public var name: String { client.user }
        public var database: String { client.database }
        public var cidrs: [String] { client.cidrs }
    }

    public var authorityPEM: String
    public var certificatePEM: String
    /// The server's own key, in its root-only file: it never leaves the VM otherwise (docs/security.md).
    public var privateKeyPEM: String
    public var users: [User]
    /// The server's part in its cell's replication; nil for a cell without standbys.
    public var replication: ServerReplication?

    public init(authorityPEM: String, certificatePEM: String, privateKeyPEM: String, users: [User], replication: ServerReplication? = nil) {
        self.authorityPEM = authorityPEM
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.users = users
        self.replication = replication
    }

    /// Derives everything for the server `server` of `application` on `engine`: its certificate for the body's names
    /// and the server's own name, and each client's verifier. Refuses names and CIDRs that are not what rendering
    /// writes (`DatabaseAccess.engineName`, addresses), as they go into the engine's configuration unquoted.
    public static func derive(
        root: SecretRoot, application: String, server: String, engine: Engine, access: DatabaseAccess, replication: DatabaseReplication? = nil
    ) throws(SecretsError) -> ServerAccess {
        try validate(access, engine: engine)
        if let replication { try ServerReplication.validate(replication) }
        guard let scheme = engine.passwordScheme else { throw noUsers(engine) }
        let authority = try ApplicationCA.derive(root: root, application: application)
        let certificate = try ServerCertificate(
            root: root, authority: authority, application: application, cell: access.cell,
            dnsNames: access.names + (access.names.contains(server) || !isHostName(server) ? [] : [server]), ipAddresses: []
        )
        var users: [User] = []
        for client in access.clients {
            let credential = try ClientCredential(root: root, application: application, cell: access.cell, service: client.service)
            users.append(User(client: client, verifier: try credential.verifier(scheme)))
        }
        return ServerAccess(
            authorityPEM: certificate.authorityPEM, certificatePEM: certificate.certificatePEM, privateKeyPEM: certificate.privateKeyPEM, users: users,
            replication: try replication.map { role throws(SecretsError) in
                var replication = try ServerReplication(root: root, application: application, cell: access.cell, role: role, scheme: scheme)
                // MariaDB's and MySQL's primary reads each standby's own status; the other engines' see it themselves.
                if engine == .mysql, case .primary = role {
                    replication.monitor = try .init(root: root, application: application, cell: access.cell, scheme: scheme)
                }
                if engine == .postgresql { replication.switchoverKey = try SwitchoverKey.publicKeyPEM(root: root, application: application, cell: access.cell) }
                return replication
            }
        )
    }

    /// Whether a server of `engine` with `access` is made with derived secrets: it has clients or replicates, on an
    /// engine whose recipes make users.
    public static func needsRoot(engine: String, access: DatabaseAccess?, replication: DatabaseReplication? = nil) -> Bool {
        guard let access, !access.clients.isEmpty || replication != nil else { return false }
        return Engine(named: engine)?.passwordScheme != nil
    }

    /// Why such a server cannot be made with `environment`: its names are malformed, or the operator's age identity is
    /// missing or unreadable. Both IaaS providers report these from `problems(desired:)`, so `plan` fails on them
    /// and apply never stops halfway for them.
    public static func problems(engine: String, access: DatabaseAccess?, replication: DatabaseReplication? = nil, environment: [String: String]) -> [String] {
        guard needsRoot(engine: engine, access: access, replication: replication), let access else { return [] }
        var problems: [String] = []
        do {
            try validate(access, engine: Engine(named: engine))
            if let replication { try ServerReplication.validate(replication) }
        } catch {
            problems.append(error.description)
        }
        do {
            _ = try AgeKeyFile.load(environment: environment)
        } catch {
            problems.append("its clients' TLS certificate and passwords are derived from the operator's age identity, which is not available: \(error.description)")
        }
        return problems
    }

    /// The body's names and CIDRs as rendering writes them; anything else is refused before it reaches a file.
    public static func validate(_ access: DatabaseAccess) throws(SecretsError) {
        for client in access.clients {
            for name in [client.user, client.database] where DatabaseAccess.engineName(name) != name {
                throw .invalidInput(reason: "spec.access: \"\(name)\" of \(client.service) is not an engine-safe name (lowercase letters, digits and _)")
            }
            for cidr in client.cidrs where !isCIDR(cidr) {
                throw .invalidInput(reason: "spec.access: \"\(cidr)\" of \(client.service) is not a CIDR")
            }
        }
        for name in access.names where !isHostName(name) {
            throw .invalidInput(reason: "spec.access: \"\(name)\" is not a host name")
        }
    }

    /// What `engine` adds to `validate(_:)`. MariaDB and MySQL match a client's address against an IPv4 network and
    /// mask only (`AccessFiles.mysqlHost`), and Oracle MySQL's user names stop at 32 characters; plan time does not
    /// know which of the two a `mysql` server runs, so both limits hold for it.
    public static func validate(_ access: DatabaseAccess, engine: Engine?) throws(SecretsError) {
        try validate(access)
        guard engine == .mysql else { return }
        for client in access.clients {
            if client.user.count > 32 {
                throw .invalidInput(reason: "spec.access: \"\(client.user)\" of \(client.service) is longer than the 32 characters of a MySQL user name")
            }
            for cidr in client.cidrs where AccessFiles.mysqlHost(cidr) == nil {
                throw .invalidInput(
                    reason: "spec.access: \"\(cidr)\" of \(client.service): MariaDB and MySQL admit an IPv4 network or every address (/0), not IPv6 networks or addresses"
                )
            }
        }
    }

    /// The refusal of a server or client on an engine whose VMs get no users.
    static func noUsers(_ engine: Engine) -> SecretsError {
        .invalidInput(reason: "mcloud makes no users on \(engine.title) VMs yet")
    }

    static func isCIDR(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let bits = Int(parts[1]), (0...128).contains(bits), !parts[0].isEmpty else { return false }
        return parts[0].allSatisfy { $0.isHexDigit || $0 == "." || $0 == ":" }
    }

    static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 253 && text.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." }
    }
}
