/// The files a server with clients gets beside its recipe (`ServerAccess`): the TLS files, and for each engine that
/// makes users its own configuration of them, which the recipe's `secure` step installs. Names and CIDRs were checked
/// by `ServerAccess.validate`, so they go in unquoted; verifiers hold only base64, hex and `$:#*`.
enum AccessFiles {
    static let authorityPath = "/etc/mcloud/tls/ca.crt"
    static let certificatePath = "/etc/mcloud/tls/server.crt"
    static let keyPath = "/etc/mcloud/tls/server.key"
    static let postgresHBAPath = "/etc/mcloud/access/pg_hba.conf"
    static let postgresUsersPath = "/etc/mcloud/access/users.sql"
    static let redisUsersPath = "/etc/mcloud/access/users.acl"
    static let mysqlUsersPath = "/etc/mcloud/access/mysql-users.sql"
    static let clickhouseUsersPath = "/etc/mcloud/access/clickhouse-users.xml"
    static let clickhouseDatabasesPath = "/etc/mcloud/access/clickhouse-databases.sql"

    static func files(_ recipe: Recipe, _ access: ServerAccess) -> [DatabaseUserData.File] {
        var files = [
            DatabaseUserData.File(path: authorityPath, permissions: "0644", content: access.authorityPEM),
            DatabaseUserData.File(path: certificatePath, permissions: "0644", content: access.certificatePEM),
            DatabaseUserData.File(path: keyPath, permissions: "0600", content: access.privateKeyPEM),
        ]
        switch recipe.engine {
        case .postgresql, .postgrespro:
            files += [
                DatabaseUserData.File(path: postgresHBAPath, permissions: "0644", content: postgresHBA(access.users, replication: access.replication)),
                DatabaseUserData.File(path: postgresUsersPath, permissions: "0600", content: postgresUsers(access.users)),
            ]
            files += access.replication.map(PostgreSQLReplication.files) ?? []
        case .redis:
            files.append(DatabaseUserData.File(path: redisUsersPath, permissions: "0600", content: redisUsers(access.users, replication: access.replication)))
            files += access.replication.map(RedisReplication.files) ?? []
        case .mysql:
            files.append(DatabaseUserData.File(path: mysqlUsersPath, permissions: "0600", content: mysqlUsers(access.users)))
            files += access.replication.map { MySQLReplication.files($0, MySQLReplication.dialect(series: recipe.series)) } ?? []
        case .clickhouse:
            files += [
                DatabaseUserData.File(path: clickhouseUsersPath, permissions: "0600", content: clickhouseUsers(access.users)),
                DatabaseUserData.File(path: clickhouseDatabasesPath, permissions: "0600", content: clickhouseDatabases(access.users)),
            ]
        case .mongodb, .arenadata:
            break
        }
        return files
    }

    /// Local administration by peer; a client only over TLS, with its password, to its own database, from its own
    /// CIDRs; any connection without TLS refused outright, and anything else matches no line, which PostgreSQL refuses.
    static func postgresHBA(_ users: [ServerAccess.User], replication: ServerReplication? = nil) -> String {
        var lines = [
            "# Written by mcloud: remote clients only over TLS with their password, each to its own database from its own addresses.",
            "local all all peer",
        ]
        for user in users {
            lines += user.cidrs.map { "hostssl \(user.database) \(user.name) \($0) scram-sha-256" }
        }
        lines += PostgreSQLReplication.hbaLines(replication)
        lines += ["hostnossl all all 0.0.0.0/0 reject", "hostnossl all all ::/0 reject"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Redis's ACL file: `default` off and without its password-less flag (which would otherwise keep protected mode
    /// refusing every other host), and per client a user with its password's hash, limited to keys and channels under
    /// its prefix and to no administrative or dangerous command. Redis has no per-user source address: the security
    /// group admits the clients' clusters. The recipe's `secure` step adds the VM's own administrator.
    static func redisUsers(_ users: [ServerAccess.User], replication: ServerReplication? = nil) -> String {
        var lines = ["user default off resetpass resetkeys resetchannels -@all"] + RedisReplication.aclLines(replication)
        for user in users {
            lines.append("user \(user.name) on \(user.verifier) resetkeys resetchannels ~\(user.database):* &\(user.database):* +@all -@admin -@dangerous")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Each user made once and given its verifier at every run (a restored dump brings back older ones), with a
    /// database it owns and no one else may connect to.
    static func postgresUsers(_ users: [ServerAccess.User]) -> String {
        var lines = ["-- Written by mcloud: one user per dependent service, with its password's SCRAM verifier and a database of its own."]
        for user in users {
            lines += [
                "SELECT 'CREATE ROLE \(user.name)' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(user.name)')",
                "\\gexec",
                "ALTER ROLE \(user.name) WITH LOGIN PASSWORD '\(user.verifier)';",
                "SELECT 'CREATE DATABASE \(user.database) OWNER \(user.name)' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '\(user.database)')",
                "\\gexec",
                "REVOKE ALL ON DATABASE \(user.database) FROM PUBLIC;",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// MariaDB's and MySQL's users, one account per client and source network, each given its `mysql_native_password`
    /// verifier at every run (a restored dump brings back older ones) and `REQUIRE SSL`, with rights on its own
    /// database only. `IDENTIFIED WITH ... AS` is the form both engines take (MySQL 8 dropped `IDENTIFIED BY
    /// PASSWORD`); `require_secure_transport` refuses plain text before any account is looked at.
    static func mysqlUsers(_ users: [ServerAccess.User]) -> String {
        var lines = ["-- Written by mcloud: one user per dependent service, with its password's verifier, over TLS only, on a database of its own."]
        for user in users {
            lines.append("CREATE DATABASE IF NOT EXISTS \(user.database);")
            lines += mysqlAccounts(user.name, cidrs: user.cidrs, verifier: user.verifier, grant: "ALL ON \(user.database).*")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One account of `name` per source network (`mysqlHost`), made once and given `verifier` at every run, over TLS
    /// only, granted `grant` (`ALL ON shop.*`).
    static func mysqlAccounts(_ name: String, cidrs: [String], verifier: String, grant: String) -> [String] {
        var hosts: [String] = []
        for host in cidrs.compactMap(mysqlHost) where !hosts.contains(host) { hosts.append(host) }
        return hosts.flatMap { host in
            let account = "'\(name)'@'\(host)'"
            let identified = "IDENTIFIED WITH mysql_native_password AS '\(verifier)' REQUIRE SSL"
            return ["CREATE USER IF NOT EXISTS \(account) \(identified);", "ALTER USER \(account) \(identified);", "GRANT \(grant) TO \(account);"]
        }
    }

    /// A CIDR as a MariaDB/MySQL account's host: `%` for every address, the address for a /32, else the network and
    /// its mask (`10.1.0.0/255.255.0.0`), the network's host bits cleared as the server compares `address & mask`
    /// with it. Nil for IPv6, whose networks neither engine matches.
    static func mysqlHost(_ cidr: String) -> String? {
        let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let bits = Int(parts[1]) else { return nil }
        if bits == 0 { return "%" }
        let octets = parts[0].split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt32($0) }.filter { $0 < 256 }
        guard octets.count == 4, parts[0].split(separator: ".", omittingEmptySubsequences: false).count == 4, bits <= 32 else { return nil }
        let address = octets.reduce(UInt32(0)) { $0 << 8 | $1 }
        let mask = bits == 32 ? UInt32.max : ~(UInt32.max >> UInt32(bits))
        func dotted(_ value: UInt32) -> String { (0..<4).map { String(value >> UInt32(24 - 8 * $0) & 255) }.joined(separator: ".") }
        return bits == 32 ? dotted(address) : "\(dotted(address & mask))/\(dotted(mask))"
    }

    /// ClickHouse's users, the `<users>` children of a users.d file that the recipe's `secure` step completes with the
    /// VM's administrator: per client its password's SHA-256, the networks it may come from, and its own database
    /// only (`allow_databases`; the `system` tables stay readable, as ClickHouse allows every user).
    static func clickhouseUsers(_ users: [ServerAccess.User]) -> String {
        var lines = ["<!-- Written by mcloud: one user per dependent service, with its password's SHA-256, on a database of its own. -->"]
        for user in users {
            lines.append("<\(user.name)>")
            lines.append("    <password_sha256_hex>\(user.verifier)</password_sha256_hex>")
            lines.append("    <networks>" + user.cidrs.map { "<ip>\($0)</ip>" }.joined() + "</networks>")
            lines += ["    <profile>default</profile>", "    <quota>default</quota>"]
            lines.append("    <allow_databases><database>\(user.database)</database></allow_databases>")
            lines.append("</\(user.name)>")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The clients' databases, made by the VM's administrator once the users are in (a client may not create one).
    static func clickhouseDatabases(_ users: [ServerAccess.User]) -> String {
        users.map { "CREATE DATABASE IF NOT EXISTS \($0.database);" }.joined(separator: "\n") + "\n"
    }
}
