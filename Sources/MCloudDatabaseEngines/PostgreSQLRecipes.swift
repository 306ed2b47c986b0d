/// PostgreSQL: the distribution's package where its major matches (Debian 12's 15, Ubuntu 22.04's 14, Ubuntu
/// 24.04's 16), else PGDG's repository (apt.postgresql.org) for 13-17. Both use Debian's postgresql-common layout:
/// cluster `<major>/main` under /var/lib/postgresql, which the data disk is mounted on before the install, so the
/// package's own `initdb` lands on it.
enum PostgreSQLRecipes {
    static let majors = ["13", "14", "15", "16", "17"]
    static let distributionMajor: [ImageFamily: String] = [.debian12: "15", .ubuntu2204: "14", .ubuntu2404: "16"]

    /// https://www.postgresql.org/download/linux/debian/ and /ubuntu/: the key, the `<codename>-pgdg` suite, `main`.
    static func pgdg(_ family: ImageFamily) -> VendorRepository {
        VendorRepository(
            name: "pgdg", vendor: "PostgreSQL Global Development Group (PGDG)",
            keyURL: "https://www.postgresql.org/media/keys/ACCC4CF8.asc", fingerprint: "B97B0AFCAA1A47F044F244A07FCC7D46ACCC4CF8",
            uri: "https://apt.postgresql.org/pub/repos/apt", suite: "\(family.codename)-pgdg", components: ["main"],
            documentation: ["https://www.postgresql.org/download/linux/debian/", "https://www.postgresql.org/download/linux/ubuntu/"]
        )
    }

    /// TLS on with the server's certificate (a copy the postgres user owns, as PostgreSQL requires of its key), the
    /// clients' pg_hba.conf in place of the package's, the users and their databases made, then a restart for TLS.
    /// `psql` is the client of the recipe's server; shared by Postgres Pro.
    static func secure(psql: String, service: String) -> [String] {
        [
            #"""
            hba=$(runuser -u postgres -- \#(psql) -X -p "$PORT" -Atc 'SHOW hba_file')
            install -d -o postgres -g postgres -m 700 /etc/mcloud/tls/postgres
            install -o postgres -g postgres -m 600 \#(AccessFiles.keyPath) /etc/mcloud/tls/postgres/server.key
            install -o postgres -g postgres -m 644 \#(AccessFiles.certificatePath) /etc/mcloud/tls/postgres/server.crt
            install -o postgres -g postgres -m 640 \#(AccessFiles.postgresHBAPath) "$hba"
            """# + "\n" + PostgreSQLReplication.installLogin,
            #"runuser -u postgres -- \#(psql) -X -q -v ON_ERROR_STOP=1 -p "$PORT" -c "ALTER SYSTEM SET ssl = on" -c "ALTER SYSTEM SET ssl_cert_file = '/etc/mcloud/tls/postgres/server.crt'" -c "ALTER SYSTEM SET ssl_key_file = '/etc/mcloud/tls/postgres/server.key'" -c "ALTER SYSTEM SET password_encryption = 'scram-sha-256'""#,
            #"runuser -u postgres -- \#(psql) -X -q -v ON_ERROR_STOP=1 -p "$PORT" -d postgres <\#(AccessFiles.postgresUsersPath)"#,
            #"[ ! -s \#(PostgreSQLReplication.primarySQLPath) ] || runuser -u postgres -- \#(psql) -X -q -v ON_ERROR_STOP=1 -p "$PORT" -d postgres <\#(PostgreSQLReplication.primarySQLPath)"#,
            "systemctl restart \(service)",
        ]
    }

    /// Where a cluster found on the volume waits while the package makes its own: on the same disk, so moving is a
    /// rename.
    static let adopted = "/var/lib/postgresql/mcloud-adopt"

    /// `prepare`: a volume that holds this major's cluster already (the server made again on it, for a new dependent,
    /// new backup settings or another image; docs/databases.md, "A server made again on its volume") has it moved
    /// aside. Debian's configuration of a cluster lives in /etc/postgresql, on the old root disk, and the package's
    /// postinst cannot take the data directory back without it (`pg_createcluster` then looks for a postgresql.conf
    /// inside it); so the package makes a cluster of its own, whose configuration `adoptBack` keeps.
    static func adoptAside(_ major: String) -> String {
        #"""
        if [ -f /var/lib/postgresql/\#(major)/main/PG_VERSION ] && [ ! -d /etc/postgresql/\#(major)/main ]; then
          rm -rf \#(adopted)
          mv /var/lib/postgresql/\#(major)/main \#(adopted)
        fi
        """#
    }

    /// `configure`'s first step: the cluster `adoptAside` kept replaces the package's empty one, owned by this VM's
    /// postgres user (whose uid may differ). Its `ALTER SYSTEM` settings stay (archive, replication), except TLS,
    /// whose files are on the old root disk: `secure` installs them again and turns it back on.
    static func adoptBack(_ major: String) -> String {
        let data = "/var/lib/postgresql/\(major)/main"
        return #"""
            if [ -d \#(adopted) ]; then
              systemctl stop postgresql@\#(major)-main
              rm -rf \#(data)
              mv \#(adopted) \#(data)
              chown -R postgres:postgres \#(data)
              sed -i -E '/^[[:space:]]*ssl(_cert_file|_key_file)?[[:space:]]*=/d' \#(data)/postgresql.auto.conf
              echo "mcloud: the cluster on the volume is this server's, with its data"
            fi
            """#
    }

    static let all: [Recipe] = ImageFamily.allCases.flatMap { family in
        majors.map { major in
            let distribution = distributionMajor[family] == major
            return recipe(major, family, source: distribution ? .distribution : .vendor(pgdg(family)), proof: distribution && family == .debian12 ? .bed : .checks)
        }
    }

    static func recipe(_ major: String, _ family: ImageFamily, source: Recipe.Source, proof: Recipe.Proof) -> Recipe {
        Recipe(
            engine: .postgresql, series: major, family: family, source: source, packages: ["postgresql-\(major)"], service: "postgresql@\(major)-main",
            mountPoint: "/var/lib/postgresql", dataDirectory: "/var/lib/postgresql/\(major)/main",
            prepare: [adoptAside(major)],
            configure: [
                adoptBack(major),
                #"pg_conftool \#(major) main set port "$PORT""#,
                #"pg_conftool \#(major) main set listen_addresses '*'"#,
                "systemctl restart postgresql@\(major)-main",
            ],
            secure: secure(psql: "psql", service: "postgresql@\(major)-main"),
            ready: #"runuser -u postgres -- psql -X -p "$PORT" -Atqc 'SELECT 1' >/dev/null"#,
            // Each database in a transaction of its own: consistent per database, not across them.
            dump: #"runuser -u postgres -- pg_dumpall -p "$PORT" | gzip >"$OUT""#,
            // The dump recreates the postgres role, which exists: psql reports that and goes on.
            restore: #"gunzip -c "$IN" | runuser -u postgres -- psql -X -q -p "$PORT" -d postgres >/dev/null"#,
            dumpExtension: "sql.gz", proof: proof,
            replication: Recipe.Replication(
                mode: .synchronous, follow: PostgreSQLReplication.follow(major: major, service: "postgresql@\(major)-main"), report: [PostgreSQLReplication.report],
                demote: PostgreSQLReplication.demote(major: major, service: "postgresql@\(major)-main"), promote: [PostgreSQLReplication.promote],
                repoint: [PostgreSQLReplication.repoint]
            )
        )
    }
}
