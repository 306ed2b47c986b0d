/// ClickHouse: the distribution's 18.16 (Debian 12, Ubuntu 24.04), or a long-term-support series from
/// packages.clickhouse.com (https://clickhouse.com/docs/install/debian_ubuntu: key, `stable main`; the fingerprint
/// is the one ClickHouse's own docker/server/Dockerfile.ubuntu imports), pinned by version. 18.16 has no BACKUP
/// statement, so every series dumps each table's `SHOW CREATE TABLE` and its rows in the Native format (one
/// snapshot per table, not across tables) into a tar file.
enum ClickHouseRecipes {
    static func repository(_ series: String) -> VendorRepository {
        VendorRepository(
            name: "clickhouse", vendor: "ClickHouse, Inc.", keyURL: "https://packages.clickhouse.com/rpm/lts/repodata/repomd.xml.key",
            fingerprint: "3A9EA1193A97B548BE1457D48919F6BD2B48D754", uri: "https://packages.clickhouse.com/deb", suite: "stable", components: ["main"],
            pin: .init(packages: "clickhouse-server clickhouse-client clickhouse-common-static", rule: "version \(series).*"),
            documentation: ["https://clickhouse.com/docs/install/debian_ubuntu"]
        )
    }

    static let vendorSeries = ["23.8", "24.3", "24.8", "25.3", "25.8"]
    static let distributionFamilies: Set<ImageFamily> = [.debian12, .ubuntu2404]

    static let all: [Recipe] = ImageFamily.allCases.flatMap { family in
        let own = distributionFamilies.contains(family) ? [recipe("18.16", family, fromDistribution: true)] : []
        return own + vendorSeries.map { recipe($0, family, fromDistribution: false) }
    }

    /// A table may be called anything, `../` and line breaks included: names travel from `system.tables` as hex, the
    /// dump's folders and files are named by that hex (so they stay inside the dump), and the SQL gets each name back
    /// as a back-quoted identifier with its backslashes and back quotes escaped.
    static let names = #"""
        unhex() { local escaped="" i; for ((i = 0; i < ${#2}; i += 2)); do escaped+="\\x${2:i:2}"; done; printf -v "$1" '%b' "$escaped"; }
        # shellcheck disable=SC2016
        identifier() { local text=${1//\\/\\\\}; text=${text//\`/\\\`}; printf '`%s`' "$text"; }
        """#

    static let dump = client + "\n" + names + "\n" + #"""
        work=$(mktemp -d)
        touch "$work/.hex-names"
        cli --format TSV --query "SELECT hex(database), hex(name), engine FROM system.tables WHERE database NOT IN ('system', 'INFORMATION_SCHEMA', 'information_schema') AND name NOT LIKE '.inner%' ORDER BY database, name" |
          while IFS=$'\t' read -r database_hex table_hex kind; do
            database="" table=""
            unhex database "$database_hex"
            unhex table "$table_hex"
            target="$(identifier "$database").$(identifier "$table")"
            mkdir -p "$work/$database_hex"
            cli --format TSVRaw --query "SHOW CREATE TABLE $target" </dev/null >"$work/$database_hex/$table_hex.sql"
            case "$kind" in
              *View | Dictionary) ;;
              *) cli --query "SELECT * FROM $target FORMAT Native" </dev/null >"$work/$database_hex/$table_hex.native" ;;
            esac
          done
        tar -C "$work" -czf "$OUT" .
        rm -rf "$work"
        """#

    /// Databases, then tables (those with rows), then views, then the rows. Dumps made before names travelled as hex
    /// (no `.hex-names` in them) name their folders and files as the tables are called.
    static let restore = client + "\n" + names + "\n" + #"""
        shopt -s nullglob
        work=$(mktemp -d)
        tar -C "$work" -xzf "$IN"
        name() { if [ -e "$work/.hex-names" ]; then unhex "$1" "$2"; else printf -v "$1" '%s' "$2"; fi; }
        database="" table=""
        for folder in "$work"/*/; do
          name database "$(basename "$folder")"
          cli --query "CREATE DATABASE IF NOT EXISTS $(identifier "$database")"
        done
        for schema in "$work"/*/*.sql; do
          if [ -e "${schema%.sql}.native" ]; then cli --multiquery <"$schema"; fi
        done
        for schema in "$work"/*/*.sql; do
          if [ ! -e "${schema%.sql}.native" ]; then cli --multiquery <"$schema"; fi
        done
        for rows in "$work"/*/*.native; do
          name database "$(basename "$(dirname "$rows")")"
          name table "$(basename "$rows" .native)"
          cli --query "INSERT INTO $(identifier "$database").$(identifier "$table") FORMAT Native" <"$rows"
        done
        rm -rf "$work"
        """#

    /// The VM's own administrator once `secure` has closed plain text: ClickHouse's `default` user, from the loopback
    /// only, with a password made on the VM, over TLS to the loopback; its client configuration (password included)
    /// is root-only. The certificate names what clients use, not 127.0.0.1, and `relaxed` checks its chain only.
    static let adminPasswordPath = "/etc/mcloud/clickhouse-admin"
    static let adminClientPath = "/etc/mcloud/clickhouse-client.xml"
    static let client = #"""
        cli() {
          if [ -s \#(adminClientPath) ]; then
            clickhouse-client --config-file \#(adminClientPath) --host 127.0.0.1 --port "$PORT" "$@"
          else
            clickhouse-client --port "$PORT" "$@"
          fi
        }
        """#

    /// TLS only: the native protocol's secure port on `$PORT` for every address, and no plain port at all (TCP, HTTP,
    /// interserver, the MySQL and PostgreSQL wire ports of later series), as ClickHouse binds every port to every
    /// `listen_host`; the clients' users with the VM's administrator; a restart, then the clients' databases.
    static func secure(root: String) -> [String] {
        [
            #"""
            install -d -o clickhouse -g clickhouse -m 750 /etc/clickhouse-server/mcloud
            install -o clickhouse -g clickhouse -m 600 \#(AccessFiles.keyPath) /etc/clickhouse-server/mcloud/server.key
            install -o clickhouse -g clickhouse -m 644 \#(AccessFiles.certificatePath) /etc/clickhouse-server/mcloud/server.crt
            install -o clickhouse -g clickhouse -m 644 \#(AccessFiles.authorityPath) /etc/clickhouse-server/mcloud/ca.crt
            [ -s \#(adminPasswordPath) ] || (umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >\#(adminPasswordPath))
            admin=$(tr -d '\n' <\#(adminPasswordPath))
            admin_hash=$(printf '%s' "$admin" | sha256sum | cut -d ' ' -f 1)
            cat >/etc/clickhouse-server/config.d/70-mcloud-tls.xml <<EOF
            <\#(root)>
                <listen_host replace="replace">0.0.0.0</listen_host>
                <tcp_port remove="remove"/>
                <http_port remove="remove"/>
                <interserver_http_port remove="remove"/>
                <mysql_port remove="remove"/>
                <postgresql_port remove="remove"/>
                <tcp_port_secure>$PORT</tcp_port_secure>
                <openSSL>
                    <server replace="replace">
                        <certificateFile>/etc/clickhouse-server/mcloud/server.crt</certificateFile>
                        <privateKeyFile>/etc/clickhouse-server/mcloud/server.key</privateKeyFile>
                        <caConfig>/etc/clickhouse-server/mcloud/ca.crt</caConfig>
                        <verificationMode>none</verificationMode>
                        <loadDefaultCAFile>false</loadDefaultCAFile>
                        <disableProtocols>sslv2,sslv3,tlsv1,tlsv1_1</disableProtocols>
                        <preferServerCiphers>true</preferServerCiphers>
                    </server>
                </openSSL>
            </\#(root)>
            EOF
            install -d -m 755 /etc/clickhouse-server/users.d
            {
              echo '<\#(root)><users>'
              echo "<default><password remove=\"remove\"/><password_sha256_hex>$admin_hash</password_sha256_hex>"
              echo '<networks replace="replace"><ip>127.0.0.1</ip><ip>::1</ip></networks></default>'
              cat \#(AccessFiles.clickhouseUsersPath)
              echo '</users></\#(root)>'
            } >/etc/clickhouse-server/users.d/70-mcloud.xml
            chown clickhouse:clickhouse /etc/clickhouse-server/users.d/70-mcloud.xml
            chmod 640 /etc/clickhouse-server/users.d/70-mcloud.xml
            (umask 077 && cat >\#(adminClientPath) <<EOF
            <config>
                <user>default</user>
                <password>$admin</password>
                <secure>1</secure>
                <openSSL>
                    <client>
                        <loadDefaultCAFile>false</loadDefaultCAFile>
                        <caConfig>\#(AccessFiles.authorityPath)</caConfig>
                        <verificationMode>relaxed</verificationMode>
                        <invalidCertificateHandler><name>RejectCertificateHandler</name></invalidCertificateHandler>
                    </client>
                </openSSL>
            </config>
            EOF
            )
            """#,
            "systemctl restart clickhouse-server",
            client + "\n" + #"""
            for _ in $(seq 120); do cli --query 'SELECT 1' >/dev/null 2>&1 && break; sleep 1; done
            cli --multiquery <\#(AccessFiles.clickhouseDatabasesPath)
            """#,
        ]
    }

    static func recipe(_ series: String, _ family: ImageFamily, fromDistribution: Bool) -> Recipe {
        // 18.16's configuration root is <yandex>; later releases name it <clickhouse>.
        let root = fromDistribution ? "yandex" : "clickhouse"
        return Recipe(
            engine: .clickhouse, series: series, family: family, source: fromDistribution ? .distribution : .vendor(repository(series)),
            packages: fromDistribution ? ["clickhouse-server", "clickhouse-client"] : ["clickhouse-server", "clickhouse-client", "clickhouse-common-static"],
            service: "clickhouse-server", mountPoint: "/var/lib/clickhouse", dataDirectory: "/var/lib/clickhouse",
            configure: [
                // The package does not take over a folder that exists; the server exits 78 without it.
                "chown clickhouse:clickhouse /var/lib/clickhouse",
                """
                install -d -m 755 /etc/clickhouse-server/config.d
                cat >/etc/clickhouse-server/config.d/60-mcloud.xml <<EOF
                <\(root)>
                    <tcp_port>$PORT</tcp_port>
                </\(root)>
                EOF
                """,
                "systemctl enable clickhouse-server", "systemctl restart clickhouse-server",
            ],
            secure: secure(root: root),
            ready: client + "\n" + #"cli --query 'SELECT 1' >/dev/null"#,
            dump: dump, restore: restore, dumpExtension: "tar.gz", proof: fromDistribution && family == .debian12 ? .bed : .checks
        )
    }
}
