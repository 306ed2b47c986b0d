/// Postgres Pro Standard from Postgres Pro's repository (repo.postgrespro.ru, `std-<major>`), whose
/// `postgrespro-std-<major>` package installs, initialises (/var/lib/pgpro/std-<major>/data) and starts the server
/// (https://postgrespro.com/docs/postgrespro/16/binary-installation-on-linux). Postgres Pro publishes the key's URL
/// but no fingerprint we could confirm, so the source trusts the key file alone.
enum PostgresProRecipes {
    static let majors = ["15", "16", "17"]

    static func repository(_ major: String, _ family: ImageFamily) -> VendorRepository {
        VendorRepository(
            name: "postgrespro-std-\(major)", vendor: "Postgres Professional", keyURL: "https://repo.postgrespro.ru/keys/GPG-KEY-POSTGRESPRO",
            fingerprint: nil, uri: "https://repo.postgrespro.ru/std-\(major)/\(family.distribution.rawValue)", suite: family.codename,
            components: ["main"],
            documentation: ["https://postgrespro.com/docs/postgrespro/\(major)/binary-installation-on-linux"]
        )
    }

    static let all: [Recipe] = ImageFamily.allCases.flatMap { family in
        majors.map { major in
            let bin = "/opt/pgpro/std-\(major)/bin"
            return Recipe(
                engine: .postgrespro, series: major, family: family, source: .vendor(repository(major, family)), packages: ["postgrespro-std-\(major)"],
                service: "postgrespro-std-\(major)", mountPoint: "/var/lib/pgpro", dataDirectory: "/var/lib/pgpro/std-\(major)/data",
                configure: [
                    // The package's server listens on 5432 until told otherwise.
                    #"runuser -u postgres -- \#(bin)/psql -X -q -p 5432 -c "ALTER SYSTEM SET port = $PORT" -c "ALTER SYSTEM SET listen_addresses = '*'""#,
                    "systemctl restart postgrespro-std-\(major)",
                ],
                secure: PostgreSQLRecipes.secure(psql: "\(bin)/psql", service: "postgrespro-std-\(major)"),
                ready: #"runuser -u postgres -- \#(bin)/psql -X -p "$PORT" -Atqc 'SELECT 1' >/dev/null"#,
                dump: #"runuser -u postgres -- \#(bin)/pg_dumpall -p "$PORT" | gzip >"$OUT""#,
                restore: #"gunzip -c "$IN" | runuser -u postgres -- \#(bin)/psql -X -q -p "$PORT" -d postgres >/dev/null"#,
                dumpExtension: "sql.gz", proof: .checks
            )
        }
    }
}
