/// Who may use a database server and under which names it is reached, as its rendered `DatabaseServer` body says
/// (`spec.access`): no secret, only names. The provider derives the certificate and each client's password from
/// them at create time (docs/connectivity.md, "TLS and users").
public struct DatabaseAccess: Sendable, Hashable {
    /// One dependent service cell: its engine user, the database (or key prefix) it alone may use, and the addresses
    /// it connects from.
    public struct Client: Sendable, Hashable {
        /// The dependent cell, `payments-api@eu`: the `service` of its password's derivation.
        public var service: String
        /// The engine-safe user name (`EngineName.of`).
        public var user: String
        /// Its own database (PostgreSQL, MariaDB, ClickHouse) or key prefix (Redis).
        public var database: String
        /// The dependents' clusters' egress CIDRs; nothing else of the client's is admitted.
        public var cidrs: [String]

        public init(service: String, user: String, database: String, cidrs: [String]) {
            self.service = service
            self.user = user
            self.database = database
            self.cidrs = cidrs
        }
    }

    /// The database cell, `payments-db@eu`: the `cell` of every derivation.
    public var cell: String
    /// The host names the server's certificate is for: the in-cluster names clients use.
    public var names: [String]
    public var clients: [Client]

    public init(cell: String, names: [String], clients: [Client]) {
        self.cell = cell
        self.names = names
        self.clients = clients
    }

    /// `payments-api@eu` as `payments_api_eu`: lowercase letters, digits and `_`, starting with a letter, at most 63
    /// characters, which every engine takes unquoted as a user, database or key prefix (PostgreSQL's identifiers stop
    /// at 63 bytes; MariaDB's user names at 80, ClickHouse's and Redis's are longer).
    public static func engineName(_ name: String) -> String {
        var text = String(name.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" })
        if text.first.map({ !("a"..."z").contains($0) }) ?? true { text = "s_" + text }
        return String(text.prefix(63))
    }
}
