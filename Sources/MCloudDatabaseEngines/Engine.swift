public import MCloudSecrets

/// The database engines mcloud knows by their `spec.engine` names. Every one is either delivered (a VM recipe of the
/// catalog, or a cloud's managed offer) or refused at plan time with the reason.
public enum Engine: String, CaseIterable, Sendable, Hashable {
    case postgresql, postgrespro, mysql, redis, clickhouse, mongodb, arenadata

    /// Other names a manifest may use: MariaDB is served by the `mysql` recipes and offers.
    public static let aliases: [String: Engine] = ["mariadb": .mysql]

    /// The engine a `spec.engine` or `offers.dbaas` entry names, aliases included.
    public init?(named name: String) {
        if let engine = Engine(rawValue: name) {
            self = engine
        } else if let engine = Self.aliases[name] {
            self = engine
        } else {
            return nil
        }
    }

    /// The canonical name of `name` (`mariadb` is `mysql`); a name mcloud does not know is returned as it is, since a
    /// cloud may still offer it managed.
    public static func canonicalName(_ name: String) -> String {
        Engine(named: name)?.rawValue ?? name
    }

    public var title: String {
        switch self {
        case .postgresql: "PostgreSQL"
        case .postgrespro: "Postgres Pro Standard"
        case .mysql: "MySQL/MariaDB"
        case .redis: "Redis"
        case .clickhouse: "ClickHouse"
        case .mongodb: "MongoDB"
        case .arenadata: "Arenadata DB"
        }
    }

    /// The engine's standard client port: what services connect to and what the security group opens.
    public var defaultPort: Int {
        switch self {
        case .postgresql, .postgrespro, .arenadata: 5432
        case .mysql: 3306
        case .redis: 6379
        case .clickhouse: 9000
        case .mongodb: 27017
        }
    }

    /// What the engine stores for a client's password, for the engines whose recipes make users (`ServerAccess`).
    public var passwordScheme: PasswordVerifier.Scheme? {
        switch self {
        case .postgresql, .postgrespro: .scramSHA256
        case .redis: .redisSHA256
        case .mysql: .mysqlNative
        case .clickhouse: .sha256Hex
        case .mongodb, .arenadata: nil
        }
    }

    /// Why the catalog has no VM recipe for the engine at all; nil for engines with recipes.
    public var managedOnlyReason: String? {
        switch self {
        case .arenadata:
            "Arenadata DB is a Greenplum-based MPP system of master and segment hosts; mcloud has no sound single-VM recipe for it, so it runs only where a cloud offers it managed (offers.dbaas)"
        default:
            nil
        }
    }
}
