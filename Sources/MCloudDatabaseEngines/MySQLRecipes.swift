/// `mysql` (alias `mariadb`): MariaDB series 10.6, 10.11 and 11.4, and Oracle MySQL 8.0 and 8.4. The distribution's
/// server where it has the series (Debian 12's MariaDB 10.11; Ubuntu's MariaDB 10.6/10.11 and MySQL 8.0), else the
/// vendor's repository. The data disk is mounted at /var/lib/mysql and the data directory is a folder below it:
/// with the mount itself as data directory its `lost+found` becomes a database that dumps but does not restore,
/// and Ubuntu's AppArmor profile for mysqld allows /var/lib/mysql only.
enum MySQLRecipes {
    static let dataDirectory = "/var/lib/mysql/data"
    /// Where each server reads its own configuration, mcloud's files last (`zz-`).
    static let mariadbFolder = "/etc/mysql/mariadb.conf.d"
    static let mysqlFolder = "/etc/mysql/mysql.conf.d"

    /// https://mariadb.com/docs/server/server-management/install-and-upgrade-mariadb/installing-mariadb/binary-packages/mariadb-package-repository-setup-and-usage
    /// (the repository mariadb_repo_setup writes) and .../binary-packages/gpg (the key, fingerprint 177F 4010 ...).
    /// The URL names the series; the origin pin lets it win over a newer series of the distribution's.
    static func mariadb(_ series: String, _ family: ImageFamily) -> VendorRepository {
        VendorRepository(
            name: "mariadb", vendor: "MariaDB plc", keyURL: "https://supplychain.mariadb.com/mariadb-keyring-2019.gpg", keyFormat: "gpg",
            fingerprint: "177F4010FE56CA3336300305F1656F24C74CD1D8",
            uri: "https://dlm.mariadb.com/repo/mariadb-server/\(series)/repo/\(family.distribution.rawValue)", suite: family.codename,
            components: ["main"], pin: .init(packages: "*", rule: "origin dlm.mariadb.com"),
            documentation: [
                "https://mariadb.com/docs/server/server-management/install-and-upgrade-mariadb/installing-mariadb/binary-packages/mariadb-package-repository-setup-and-usage",
                "https://mariadb.com/docs/server/server-management/install-and-upgrade-mariadb/installing-mariadb/binary-packages/gpg",
            ]
        )
    }

    /// The MySQL APT repository's manual setup (https://dev.mysql.com/doc/mysql-apt-repo-quick-guide/en/, appendix
    /// A: `deb http://repo.mysql.com/apt/<debian|ubuntu>/ <codename> mysql-<series>`) and the build key of
    /// https://dev.mysql.com/doc/refman/8.4/en/checking-gpg-signature.html.
    static func oracle(_ series: String, _ family: ImageFamily) -> VendorRepository {
        VendorRepository(
            name: "mysql", vendor: "Oracle MySQL", keyURL: "https://repo.mysql.com/RPM-GPG-KEY-mysql-2023",
            fingerprint: "BCA43417C3B485DD128EC6D4B7B3B788A8D3785C", uri: "http://repo.mysql.com/apt/\(family.distribution.rawValue)/", suite: family.codename,
            components: [series == "8.4" ? "mysql-8.4-lts" : "mysql-\(series)"], pin: .init(packages: "*", rule: "origin repo.mysql.com"),
            documentation: ["https://dev.mysql.com/doc/mysql-apt-repo-quick-guide/en/", "https://dev.mysql.com/doc/refman/8.4/en/checking-gpg-signature.html"]
        )
    }

    /// The series of each family, each from the distribution or its vendor.
    static let offered: [ImageFamily: [(series: String, fromDistribution: Bool)]] = [
        .debian12: [("10.6", false), ("10.11", true), ("11.4", false), ("8.0", false), ("8.4", false)],
        .ubuntu2204: [("10.6", true), ("10.11", false), ("11.4", false), ("8.0", true), ("8.4", false)],
        .ubuntu2404: [("10.11", true), ("11.4", false), ("8.0", true), ("8.4", false)],
    ]

    static let all: [Recipe] = ImageFamily.allCases.flatMap { family in
        (offered[family] ?? []).map { series, fromDistribution in
            series.hasPrefix("8.") ? mysql(series, family, fromDistribution) : mariadbRecipe(series, family, fromDistribution)
        }
    }

    static func settings(_ folder: String) -> String {
        """
        install -d -m 755 \(folder)
        cat >\(folder)/zz-mcloud.cnf <<EOF
        [mysqld]
        port = $PORT
        bind-address = 0.0.0.0
        datadir = \(dataDirectory)
        EOF
        """
    }

    /// TLS on with copies of the server's certificate and key that the server's user owns, under /etc/mysql (which
    /// Ubuntu's AppArmor profile for mysqld lets it read); every TCP client refused without TLS
    /// (`require_secure_transport`, the Unix socket counts as secure), no reverse lookups, as the accounts name
    /// addresses; a restart, then the clients' users. Oracle MySQL 8.4 loads `mysql_native_password` only when asked,
    /// so its configuration says so before the users need it. `client` is the recipe's client, `folder` its server's
    /// configuration folder.
    static func secure(client: String, service: String, folder: String, nativePassword: Bool) -> [String] {
        [
            #"""
            install -d -o mysql -g mysql -m 750 /etc/mysql/mcloud
            install -o mysql -g mysql -m 600 \#(AccessFiles.keyPath) /etc/mysql/mcloud/server.key
            install -o mysql -g mysql -m 644 \#(AccessFiles.certificatePath) /etc/mysql/mcloud/server.crt
            install -o mysql -g mysql -m 644 \#(AccessFiles.authorityPath) /etc/mysql/mcloud/ca.crt
            cat >\#(folder)/zz-mcloud-tls.cnf <<EOF
            [mysqld]
            ssl_cert = /etc/mysql/mcloud/server.crt
            ssl_key = /etc/mysql/mcloud/server.key
            ssl_ca = /etc/mysql/mcloud/ca.crt
            require_secure_transport = ON
            skip_name_resolve = ON\#(nativePassword ? "\nmysql_native_password = ON" : "")
            EOF
            """#,
            "systemctl restart \(service)",
            users(client: client, folder: folder),
        ]
    }

    /// The clients' users and a primary's replication account (`MySQLReplication`), at `secure` and after every
    /// restore once TLS is on: a restored dump brings back the users of the day it was taken.
    static func users(client: String, folder: String) -> String {
        #"""
        if [ -e \#(folder)/zz-mcloud-tls.cnf ]; then
          for _ in $(seq 120); do \#(client) -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 1; done
          \#(client) <\#(AccessFiles.mysqlUsersPath)
          [ ! -s \#(MySQLReplication.primarySQLPath) ] || \#(client) <\#(MySQLReplication.primarySQLPath)
        fi
        """#
    }

    static func mariadbRecipe(_ series: String, _ family: ImageFamily, _ fromDistribution: Bool) -> Recipe {
        Recipe(
            engine: .mysql, series: series, family: family, source: fromDistribution ? .distribution : .vendor(mariadb(series, family)),
            packages: ["mariadb-server", "mariadb-client"], service: "mariadb", mountPoint: "/var/lib/mysql", dataDirectory: dataDirectory,
            // The package's own setup creates the data directory it reads from the configuration.
            prepare: [settings(mariadbFolder)],
            configure: ["systemctl enable mariadb"] + MySQLReplication.settings(.mariadb),
            secure: secure(client: "mariadb", service: "mariadb", folder: mariadbFolder, nativePassword: false),
            ready: "mariadb -e 'SELECT 1' >/dev/null",
            // When the log is shipped (`BinaryLogArchive`), the lineage of the logs that follow and where in the log the
            // dump stands, as comments.
            dump: BinaryLogArchive.lineage + "\n" + #"""
                { [ -z "${MCLOUD_LOG_ARCHIVE:-}" ] || echo "-- mcloud-log-id: $(log_id)"
                  mariadb-dump --all-databases --single-transaction --quick --routines --events --triggers ${MCLOUD_LOG_ARCHIVE:+--master-data=2}; } | gzip >"$OUT"
                """#,
            restore: #"gunzip -c "$IN" | mariadb"# + "\n" + users(client: "mariadb", folder: mariadbFolder),
            dumpExtension: "sql.gz", proof: fromDistribution && family == .debian12 ? .bed : .checks,
            replication: Recipe.Replication(mode: .semisynchronous, follow: MySQLReplication.follow(.mariadb), report: MySQLReplication.report(.mariadb)),
            logArchive: BinaryLogArchive.mariadb
        )
    }

    static func mysql(_ series: String, _ family: ImageFamily, _ fromDistribution: Bool) -> Recipe {
        Recipe(
            engine: .mysql, series: series, family: family, source: fromDistribution ? .distribution : .vendor(oracle(series, family)),
            packages: fromDistribution ? ["mysql-server-\(series)", "mysql-client-\(series)"] : ["mysql-server", "mysql-client"], service: "mysql",
            mountPoint: "/var/lib/mysql", dataDirectory: dataDirectory,
            prepare: [settings(mysqlFolder)],
            configure: ["systemctl enable mysql"] + MySQLReplication.settings(.oracle(series)),
            secure: secure(client: "mysql", service: "mysql", folder: mysqlFolder, nativePassword: series != "8.0"),
            ready: "mysql -e 'SELECT 1' >/dev/null",
            dump: #"mysqldump --all-databases --single-transaction --quick --routines --events --triggers --set-gtid-purged=OFF | gzip >"$OUT""#,
            restore: #"gunzip -c "$IN" | mysql"# + "\n" + users(client: "mysql", folder: mysqlFolder),
            dumpExtension: "sql.gz", proof: .checks,
            replication: Recipe.Replication(mode: .semisynchronous, follow: MySQLReplication.follow(.oracle(series)), report: MySQLReplication.report(.oracle(series)))
        )
    }
}
