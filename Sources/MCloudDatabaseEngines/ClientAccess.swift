public import MCloudSecrets

/// What a dependent service is given to reach a database VM: the other side of `ServerAccess`, from the same
/// derivation (`ClientCredential`, `ApplicationCA`), so the password here is exactly the one whose verifier the
/// server holds. It becomes the data of the service's Secret: `host`, `port`, `user`, `password`, `database`,
/// `ca.crt` and a ready `uri`.
public struct ClientAccess: Sendable {
    /// How the client's TLS is checked.
    public enum TLS: String, Sendable, Hashable {
        /// Against the application's CA, which signed the server's certificate: a database VM's.
        case verified
        /// Encrypted, but the server's certificate is its own, signed by no CA mcloud holds: a managed database whose
        /// cloud lets nobody give it one (`ManagedAccess`). The Secret then holds no CA.
        case unverified
    }

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
        public var tls: TLS

        public init(
            application: String, cell: String, service: String, engine: Engine, host: String, port: Int, user: String, database: String,
            authorityPath: String, generation: UInt32 = 1, tls: TLS = .verified
        ) {
            self.tls = tls
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
    /// Nil for a server whose certificate the application's CA did not sign (`TLS.unverified`).
    public let authorityPEM: String?
    /// The URI a driver takes as it is (`uri(_:password:)`).
    public let uri: String

    public init(root: SecretRoot, edge: Edge) throws(SecretsError) {
        self.edge = edge
        password = try ClientCredential(root: root, application: edge.application, cell: edge.cell, service: edge.service, generation: edge.generation).password
        uri = try Self.uri(edge, password: password.value)
        authorityPEM = edge.tls == .verified ? try ApplicationCA.certificatePEM(root: root, application: edge.application, generation: edge.generation) : nil
    }

    /// The URI a driver takes as it is, one form per engine, each with verified TLS against the mounted CA:
    /// PostgreSQL's `sslmode=verify-full` without channel binding, which libpq cannot do with an Ed25519 certificate
    /// (docs/connectivity.md); Redis's `rediss`, whose client is given the CA as a file; MariaDB's and MySQL's
    /// `ssl-mode=VERIFY_IDENTITY` with `ssl-ca`, the keys MySQL Shell, the X DevAPI connectors and sqlx read;
    /// ClickHouse's native protocol as clickhouse-go takes it, `secure=true` (its other keys are server settings, so
    /// the CA goes to the driver's TLS configuration from `ca.crt`). Users and
    /// passwords are letters, digits and `_`, so nothing needs escaping. Engines whose VMs get no users have no URI.
    /// A `TLS.unverified` edge (Trove's MySQL) asks for encryption without checking the server: `ssl-mode=REQUIRED`.
    static func uri(_ edge: Edge, password: String) throws(SecretsError) -> String {
        let credentials = "\(edge.user):\(password)@\(edge.host):\(edge.port)"
        if edge.tls == .unverified {
            guard edge.engine == .mysql else { throw ServerAccess.noUsers(edge.engine) }
            return "mysql://\(credentials)/\(edge.database)?ssl-mode=REQUIRED"
        }
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

    /// The Secret's data: `dataKeys(edge)`.
    public var stringData: [String: String] {
        var data = ["host": edge.host, "port": String(edge.port), "user": edge.user, "password": password.value, "database": edge.database, "uri": uri]
        if let authorityPEM { data[Self.authorityKey] = authorityPEM }
        return data
    }
}
