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

    static let dump = names + "\n" + #"""
        work=$(mktemp -d)
        touch "$work/.hex-names"
        clickhouse-client --port "$PORT" --format TSV --query "SELECT hex(database), hex(name), engine FROM system.tables WHERE database NOT IN ('system', 'INFORMATION_SCHEMA', 'information_schema') AND name NOT LIKE '.inner%' ORDER BY database, name" |
          while IFS=$'\t' read -r database_hex table_hex kind; do
            database="" table=""
            unhex database "$database_hex"
            unhex table "$table_hex"
            target="$(identifier "$database").$(identifier "$table")"
            mkdir -p "$work/$database_hex"
            clickhouse-client --port "$PORT" --format TSVRaw --query "SHOW CREATE TABLE $target" </dev/null >"$work/$database_hex/$table_hex.sql"
            case "$kind" in
              *View | Dictionary) ;;
              *) clickhouse-client --port "$PORT" --query "SELECT * FROM $target FORMAT Native" </dev/null >"$work/$database_hex/$table_hex.native" ;;
            esac
          done
        tar -C "$work" -czf "$OUT" .
        rm -rf "$work"
        """#

    /// Databases, then tables (those with rows), then views, then the rows. Dumps made before names travelled as hex
    /// (no `.hex-names` in them) name their folders and files as the tables are called.
    static let restore = names + "\n" + #"""
        shopt -s nullglob
        work=$(mktemp -d)
        tar -C "$work" -xzf "$IN"
        name() { if [ -e "$work/.hex-names" ]; then unhex "$1" "$2"; else printf -v "$1" '%s' "$2"; fi; }
        database="" table=""
        for folder in "$work"/*/; do
          name database "$(basename "$folder")"
          clickhouse-client --port "$PORT" --query "CREATE DATABASE IF NOT EXISTS $(identifier "$database")"
        done
        for schema in "$work"/*/*.sql; do
          if [ -e "${schema%.sql}.native" ]; then clickhouse-client --port "$PORT" --multiquery <"$schema"; fi
        done
        for schema in "$work"/*/*.sql; do
          if [ ! -e "${schema%.sql}.native" ]; then clickhouse-client --port "$PORT" --multiquery <"$schema"; fi
        done
        for rows in "$work"/*/*.native; do
          name database "$(basename "$(dirname "$rows")")"
          name table "$(basename "$rows" .native)"
          clickhouse-client --port "$PORT" --query "INSERT INTO $(identifier "$database").$(identifier "$table") FORMAT Native" <"$rows"
        done
        rm -rf "$work"
        """#

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
            ready: #"clickhouse-client --port "$PORT" --query 'SELECT 1' >/dev/null"#,
            dump: dump, restore: restore, dumpExtension: "tar.gz", proof: fromDistribution && family == .debian12 ? .bed : .checks
        )
    }
}
