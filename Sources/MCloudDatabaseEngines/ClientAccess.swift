public import MCloudSecrets

/// What a dependent service is given to reach a database VM: the other side of `ServerAccess`, from the same
/// derivation (`ClientCredential`, `ApplicationCA`), so the password here is exactly the one whose verifier the
/// server holds. It becomes the data of the service's Secret: `host`, `port`, `user`, `password`, `database`,
/// `ca.crt` and a ready `uri`.
public struct ClientAccess: Sendable {
    /// Which edge, and the names the client uses: nothing secret, as rendering writes it.
    public struct Edge: Sendable, Hashable {
        public var application: String
        /// The database cell, `payments-db@eu`: the `cell` of the derivation.
        public var cell: String
        /// The dependent cell, `payments-api@eu`: the `service` of the derivation.
        public var service: String
        public var engine: Engine
        /// One of the server certificate's names: the connection's in-cluster name.
        public var host: String
        public var port: Int
        public var user: String
        public var database: String
        /// Where the pods find the CA's file, which a PostgreSQL URI names as `sslrootcert`.
        public var authorityPath: String
        public var generation: UInt32

        public init(
            application: String, cell: String, service: String, engine: Engine, host: String, port: Int, user: String, database: String,
            authorityPath: String, generation: UInt32 = 1
        ) {
            self.application = application
            self.cell = cell
            self.service = service
            self.engine = engine
            self.host = host
            self.port = port
            self.user = user
            self.database = database
            self.authorityPath = authorityPath
            self.generation = generation
        }
    }

    /// The CA's key in the Secret, and its file's name where the pods mount it.
    public static let authorityKey = "ca.crt"

    public let edge: Edge
    public let password: GeneratedPassword
    public let authorityPEM: String
    /// The URI a driver takes as it is (`uri(_:password:)`).
    public let uri: String

    public init(root: SecretRoot, edge: Edge) throws(SecretsError) {
        self.edge = edge
        password = try ClientCredential(root: root, application: edge.application, cell: edge.cell, service: edge.service, generation: edge.generation).password
        uri = try Self.uri(edge, password: password.value)
        authorityPEM = try ApplicationCA.certificatePEM(root: root, application: edge.application, generation: edge.generation)
    }

    /// The URI a driver takes as it is, one form per engine, each with verified TLS against the mounted CA:
    /// PostgreSQL's `sslmode=verify-full` without channel binding, which libpq cannot do with an Ed25519 certificate
    /// (docs/connectivity.md); Redis's `rediss`, whose client is given the CA as a file; MariaDB's and MySQL's
    /// `ssl-mode=VERIFY_IDENTITY` with `ssl-ca`, the keys MySQL Shell, the X DevAPI connectors and sqlx read;
    /// ClickHouse's native protocol as clickhouse-go takes it, `secure=true` (its other keys are server settings, so
    /// the CA goes to the driver's TLS configuration from `ca.crt`). Users and
    /// passwords are letters, digits and `_`, so nothing needs escaping. Engines whose VMs get no users have no URI.
    static func uri(_ edge: Edge, password: String) throws(SecretsError) -> String {
        let credentials = "\(edge.user):\(password)@\(edge.host):\(edge.port)"
        switch edge.engine {
        case .postgresql, .postgrespro:
            return "postgresql://\(credentials)/\(edge.database)?sslmode=verify-full&sslrootcert=\(edge.authorityPath)&channel_binding=disable"
        case .redis:
            return "rediss://\(credentials)"
        case .mysql:
            return "mysql://\(credentials)/\(edge.database)?ssl-mode=VERIFY_IDENTITY&ssl-ca=\(edge.authorityPath)"
        case .clickhouse:
            return "clickhouse://\(credentials)/\(edge.database)?secure=true"
        case .mongodb, .arenadata:
            throw ServerAccess.noUsers(edge.engine)
        }
    }

    /// The Secret's data.
    public var stringData: [String: String] {
        [
            "host": edge.host, "port": String(edge.port), "user": edge.user, "password": password.value, "database": edge.database,
            Self.authorityKey: authorityPEM, "uri": uri,
        ]
    }
}
