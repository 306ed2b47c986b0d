import MCloudCore
import MCloudSecrets

/// MariaDB's and Oracle MySQL's GTID replication between a cell's primary and its standbys (docs/databases.md, "Standbys"), over the
/// cell's verified TLS: the primary writes a row-based binary log with GTIDs from the restart of `configure` on, before
/// any restore and any client, so a standby that starts from GTID 0 replays everything the primary holds; the
/// standby logs in as the `replicator` account (`REPLICATION SLAVE` only, `REQUIRE SSL`), verifies the primary's
/// certificate against the cell's CA and its name, and is read-only. A commit on the primary waits for a standby's
/// acknowledgement (semi-synchronous, `AFTER_SYNC`) for up to `semiSyncTimeoutMilliseconds`, then goes on alone until a
/// standby has caught up again. The primary reads each standby's lag from the standby itself (`report`), as the
/// `replication_monitor` account, granted the one privilege that reads replica status (`Dialect.monitorGrant`).
enum MySQLReplication {
    /// The primary's part, which `secure` (and every restore) loads once the clients' users are made: the replication
    /// account with its verifier, admitted from the private ranges.
    static let primarySQLPath = "/etc/mcloud/access/mysql-replication.sql"
    /// The standby's login to its primary: the password alone, root-only, read into `CHANGE MASTER TO` through stdin.
    static let passwordPath = "/etc/mcloud/access/mysql-replication.password"
    /// How long a commit waits for a standby's acknowledgement before the primary goes on asynchronously (MariaDB's
    /// default, stated): a standby that is down stops no commit for longer than this.
    static let semiSyncTimeoutMilliseconds = 10_000
    /// The primary's login to its standbys as the monitor account, a client option file (root-only), which the report
    /// names with `--defaults-extra-file`: the password never on a command line.
    static let monitorOptionsPath = "/etc/mcloud/access/mysql-monitor.cnf"
    /// The primary's `server_id`; a standby's is one more than its copy (`standby_1` is 2).
    static let primaryServerID = 1

    static func files(_ replication: ServerReplication, _ dialect: Dialect) -> [DatabaseUserData.File] {
        switch replication.role {
        case .primary(_, let cidrs):
            var files = [
                DatabaseUserData.File(
                    path: primarySQLPath, permissions: "0600",
                    content: primarySQL(cidrs: cidrs, verifier: replication.verifier, monitor: replication.monitor?.verifier, dialect)
                ),
            ]
            if let monitor = replication.monitor {
                let options = [
                    "# Written by mcloud: the login mcloud-engine replicas reads each standby's replica status with.", "[client]",
                    "user = \(ReplicationCredential.monitor)", "password = \(monitor.password)",
                ]
                files.append(DatabaseUserData.File(path: monitorOptionsPath, permissions: "0600", content: options.joined(separator: "\n") + "\n"))
            }
            return files
        case .standby:
            return [DatabaseUserData.File(path: passwordPath, permissions: "0600", content: (replication.password ?? "") + "\n")]
        }
    }

    /// The replication account per private range the standbys connect from, made once and given its verifier at
    /// every run (a restored dump brings back older accounts), over TLS only, allowed to read the binary log only; and
    /// with a `monitor` verifier the monitor account from the same ranges (the primary connects to its standbys from
    /// where they connect to it), granted the one privilege that reads replica status. Both reach the standbys through
    /// the binary log.
    static func primarySQL(cidrs: [String], verifier: String, monitor: String? = nil, _ dialect: Dialect) -> String {
        let header = "-- Written by mcloud: the account the standbys replicate as, over TLS only, allowed nothing but replication"
            + (monitor == nil ? "." : ", and the one the primary reads their replica status as.")
        var accounts = AccessFiles.mysqlAccounts(ReplicationCredential.user, cidrs: cidrs, verifier: verifier, grant: "REPLICATION SLAVE ON *.*")
        if let monitor {
            accounts += AccessFiles.mysqlAccounts(ReplicationCredential.monitor, cidrs: cidrs, verifier: monitor, grant: "\(dialect.monitorGrant) ON *.*")
        }
        return ([header] + accounts).joined(separator: "\n") + "\n"
    }

    /// A standby's `server_id`: one more than the copy its name ends in (rendering names them `standby_<copy>`), else
    /// a number of its name above every copy's.
    static func serverID(standby name: String) -> Int {
        if let copy = Int(name.split(separator: "_").last ?? ""), (1...1000).contains(copy), name == DatabaseReplication.standbyName(copy: copy) {
            return primaryServerID + copy
        }
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return 1001 + Int(hash % 1_000_000)
    }

    /// MariaDB's or Oracle MySQL's words for the same replication.
    struct Dialect {
        var client: String
        var service: String
        var folder: String
        /// Oracle MySQL 8.4 loads `mysql_native_password` only when asked (`MySQLRecipes.secure`).
        var nativePassword: Bool
        /// The settings beside `server_id` and `log_bin`, on every server, on the primary, on a standby.
        var common: [String]
        var primary: [String]
        var standby: [String]
        /// Empties a server's own binary log and GTID history.
        var reset: String
        /// `SHOW ... STATUS`, its field names, and the statements that make a standby follow.
        var status: String
        var ioRunning: String
        var behind: String
        var change: String
        var start: String
        /// What `report` reads: the primary's list of its connected standbys; the replica status fields of the SQL
        /// thread and of the primary's binary log position it has executed; the semi-synchronous status variables of
        /// the primary and of a replica; the client's option that verifies the server's certificate and name; and
        /// the one privilege the monitor account needs to read replica status (MariaDB's `SLAVE MONITOR` also shows a
        /// standby's relay log, `SHOW RELAYLOG EVENTS`; MySQL's `REPLICATION CLIENT` also lists the binary log files).
        var hosts: String
        var sqlRunning: String
        var executedFile: String
        var executedPosition: String
        var primarySemiSync: String
        var replicaSemiSync: String
        var verifyIdentity: String
        var monitorGrant: String

        static let mariadb = Dialect(
            client: "mariadb", service: "mariadb", folder: MySQLRecipes.mariadbFolder, nativePassword: false,
            common: ["log_bin = mariadb-bin", "binlog_format = ROW", "log_slave_updates = ON", "gtid_strict_mode = ON"],
            primary: [
                "rpl_semi_sync_master_enabled = ON", "rpl_semi_sync_master_wait_point = AFTER_SYNC", "rpl_semi_sync_master_timeout = \(MySQLReplication.semiSyncTimeoutMilliseconds)",
            ],
            standby: ["read_only = ON", "rpl_semi_sync_slave_enabled = ON"],
            reset: "RESET MASTER;\nSET GLOBAL gtid_slave_pos = '';", status: "SHOW SLAVE STATUS", ioRunning: "Slave_IO_Running", behind: "Seconds_Behind_Master",
            change: """
                CHANGE MASTER TO MASTER_HOST = '$MCLOUD_PRIMARY_HOST', MASTER_PORT = $MCLOUD_PRIMARY_PORT, MASTER_USER = '\(ReplicationCredential.user)',
                  MASTER_PASSWORD = '$password', MASTER_SSL = 1, MASTER_SSL_CA = '/etc/mysql/mcloud/ca.crt', MASTER_SSL_VERIFY_SERVER_CERT = 1,
                  MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 5;
                """,
            start: "START SLAVE;", hosts: "SHOW SLAVE HOSTS", sqlRunning: "Slave_SQL_Running", executedFile: "Relay_Master_Log_File",
            executedPosition: "Exec_Master_Log_Pos", primarySemiSync: "Rpl_semi_sync_master_status", replicaSemiSync: "Rpl_semi_sync_slave_status",
            verifyIdentity: "--ssl-verify-server-cert", monitorGrant: "SLAVE MONITOR"
        )

        /// Oracle MySQL 8.0 and 8.4 (https://dev.mysql.com/doc/refman/8.4/en/replication-gtids-howto.html,
        /// .../replication-semisync-installation.html): GTIDs with auto-positioning, the semi-synchronous plugins by
        /// their 8.0.26+ names (`loose_`: the variables exist only once the plugin has loaded), the 8.4 words for
        /// `RESET MASTER`, which 8.4 removed.
        static func oracle(_ series: String) -> Dialect {
            Dialect(
                client: "mysql", service: "mysql", folder: MySQLRecipes.mysqlFolder, nativePassword: series != "8.0",
                common: ["log_bin = mysql-bin", "gtid_mode = ON", "enforce_gtid_consistency = ON", "log_replica_updates = ON"],
                primary: [
                    "plugin_load_add = semisync_source.so", "loose_rpl_semi_sync_source_enabled = ON", "loose_rpl_semi_sync_source_wait_point = AFTER_SYNC",
                    "loose_rpl_semi_sync_source_timeout = \(MySQLReplication.semiSyncTimeoutMilliseconds)",
                ],
                standby: ["read_only = ON", "plugin_load_add = semisync_replica.so", "loose_rpl_semi_sync_replica_enabled = ON"],
                reset: series == "8.0" ? "RESET MASTER;" : "RESET BINARY LOGS AND GTIDS;", status: "SHOW REPLICA STATUS", ioRunning: "Replica_IO_Running",
                behind: "Seconds_Behind_Source",
                change: """
                    CHANGE REPLICATION SOURCE TO SOURCE_HOST = '$MCLOUD_PRIMARY_HOST', SOURCE_PORT = $MCLOUD_PRIMARY_PORT, SOURCE_USER = '\(ReplicationCredential.user)',
                      SOURCE_PASSWORD = '$password', SOURCE_SSL = 1, SOURCE_SSL_CA = '/etc/mysql/mcloud/ca.crt', SOURCE_SSL_VERIFY_SERVER_CERT = 1,
                      SOURCE_AUTO_POSITION = 1, SOURCE_CONNECT_RETRY = 5;
                    """,
                start: "START REPLICA;", hosts: "SHOW REPLICAS", sqlRunning: "Replica_SQL_Running", executedFile: "Relay_Source_Log_File",
                executedPosition: "Exec_Source_Log_Pos", primarySemiSync: "Rpl_semi_sync_source_status", replicaSemiSync: "Rpl_semi_sync_replica_status",
                verifyIdentity: "--ssl-mode=VERIFY_IDENTITY", monitorGrant: "REPLICATION CLIENT"
            )
        }
    }

    /// The dialect of a `mysql` series: Oracle MySQL's `8.x`, MariaDB's every other.
    static func dialect(series: String) -> Dialect {
        series.hasPrefix("8.") ? .oracle(series) : .mariadb
    }

    /// `configure`'s settings, written before its restart, so the binary log starts before any restore or client:
    /// on a primary and a standby alike (a standby logs what it applies, so it can be promoted); a standby read-only.
    /// Oracle MySQL logs from the package's first start, without GTIDs, which a standby that auto-positions cannot
    /// take: a fresh primary (no GTID yet) empties that log once it runs with GTIDs.
    static func settings(_ dialect: Dialect) -> [String] {
        var lines = [
            "if [ -n \"${MCLOUD_STANDBY_NAME:-}\" ] || [ -s \(primarySQLPath) ] || [ -n \"${MCLOUD_LOG_ARCHIVE:-}\" ]; then",
            "  {",
            "    echo '[mysqld]'",
            "    echo \"server_id = ${MCLOUD_SERVER_ID:-\(primaryServerID)}\"",
        ]
        lines += dialect.common.map { "    echo '\($0)'" }
        lines.append("    if [ -n \"${MCLOUD_STANDBY_NAME:-}\" ]; then")
        lines += dialect.standby.map { "      echo '\($0)'" }
        // How the primary's report reaches this standby: its server name, which its certificate holds, and its port.
        lines += ["      echo \"report_host = $MCLOUD_SERVER\"", "      echo \"report_port = $PORT\""]
        // Semi-synchronous only with standbys: a primary that only ships its log would wait for none at every commit.
        lines.append("    elif [ -s \(primarySQLPath) ]; then")
        lines += dialect.primary.map { "      echo '\($0)'" }
        lines += ["    fi", "  } >\(dialect.folder)/zz-mcloud-replication.cnf", "fi"]
        var steps = [lines.joined(separator: "\n"), "systemctl restart \(dialect.service)"]
        if dialect.client == "mysql" {
            steps.append(#"""
                if [ -s \#(primarySQLPath) ] && [ -z "$(mysql -N -e 'SELECT @@GLOBAL.gtid_executed')" ]; then
                  mysql -e '\#(dialect.reset)'
                fi
                """#)
        }
        return steps
    }

    /// The standby's `follow`: its TLS as `secure` installs it, then, once only (a standby that already follows keeps
    /// its position), its own binary log and GTIDs emptied and the primary followed from GTID 0 over verified TLS, the
    /// password read from its root-only file into the client's stdin (never an argument). The replication thread
    /// retries the primary every 5 s by itself while it installs; `follow` waits up to 15 minutes for it to connect
    /// and prints the lag. The clients' users come from the primary's binary log.
    static func follow(_ dialect: Dialect) -> [String] {
        let secure = MySQLRecipes.secure(client: dialect.client, service: dialect.service, folder: dialect.folder, nativePassword: dialect.nativePassword)
        let client = dialect.client
        return [
            secure[0], secure[1],
            #"""
            if [ -n "${MCLOUD_PRIMARY_ADDRESS:-}" ] && ! grep -q " $MCLOUD_PRIMARY_HOST\$" /etc/hosts; then
              echo "$MCLOUD_PRIMARY_ADDRESS $MCLOUD_PRIMARY_HOST" >>/etc/hosts
            fi
            if [ -z "$(\#(client) -N -e '\#(dialect.status)')" ]; then
              password=$(tr -d '\n' <\#(passwordPath))
              \#(client) <<EOF
            \#(dialect.reset)
            \#(dialect.change)
            \#(dialect.start)
            EOF
            fi
            for _ in $(seq 450); do
              \#(client) -e '\#(dialect.status)\G' | grep -q '^ *\#(dialect.ioRunning): Yes$' && break
              sleep 2
            done
            status=$(\#(client) -e '\#(dialect.status)\G')
            grep -q '^ *\#(dialect.ioRunning): Yes$' <<<"$status" || {
              echo "mcloud: not replicating from $MCLOUD_PRIMARY_HOST:$MCLOUD_PRIMARY_PORT after 900 s:" >&2
              grep -E '^ *(\#(dialect.ioRunning)|Last_IO_Error|Last_SQL_Error):' <<<"$status" >&2
              exit 1
            }
            # read_only is in the configuration for every start; set once more, as the bed found it off after this first one.
            \#(client) -e 'SET GLOBAL read_only = ON'
            echo "mcloud: replicating from $MCLOUD_PRIMARY_HOST:$MCLOUD_PRIMARY_PORT, $(grep -E '^ *\#(dialect.behind):' <<<"$status" | tr -s ' ')"
            """#,
        ]
    }

    /// The primary's `replicas` (`Recipe.Replication.report`). The primary cannot see how far a replica has applied,
    /// only what it has sent, so it asks each standby: the standbys connected now (`hosts`), each by the
    /// `report_host` and `report_port` it registered with (its server name and port), are read over TLS that verifies
    /// the standby's certificate against the cell's CA and that name, as the monitor account. A standby is
    /// `standby_<server_id - 1>`, the inverse of `serverID` for the names rendering gives. A name that does not
    /// resolve on the primary (the providers give a standby its primary's address, not the primary its standbys')
    /// is mapped in /etc/hosts to the address of the one replication connection when there is one. State: `streaming` when
    /// both replication threads run, `sql-stopped` when only the SQL thread is stopped, `connecting` or `io-stopped`
    /// by the IO thread, `unreachable` when it does not answer the monitor within 20 s. Sync: `semi-sync` when the
    /// standby's IO thread acknowledges semi-synchronously and the primary still waits for acknowledgements (it has
    /// not fallen back after its timeout), else `async`. The lag is `Seconds_Behind_Master`, 0 when it is NULL
    /// (a replication thread stopped: the state says so, and only a following standby's lag is judged); the bytes are
    /// those of the primary's binary log, from the file and position the standby has executed to the end of the
    /// newest file (`SHOW BINARY LOGS`, read after the standby, so never less than what it has executed), 0 when the
    /// standby names no file the primary still has.
    static func report(_ dialect: Dialect) -> [String] {
        let client = dialect.client
        return [
            #"""
            here() { \#(client) -N -B -e "$1" </dev/null; }
            there() {
              timeout 20 \#(client) --defaults-extra-file=\#(monitorOptionsPath) --host="$1" --port="$2" --ssl-ca=/etc/mysql/mcloud/ca.crt \#(dialect.verifyIdentity) \
                --connect-timeout=5 -e "$3" </dev/null
            }
            field() { sed -n "s/^ *$1: //p" <<<"$2" | head -n 1; }
            [ -s \#(monitorOptionsPath) ] || { echo "mcloud-engine replicas: no monitor login in \#(monitorOptionsPath)" >&2; exit 1; }
            primary_sync=$(here "SHOW GLOBAL STATUS LIKE '\#(dialect.primarySemiSync)'" | cut -f 2)
            hosts=$(here '\#(dialect.hosts)')
            # A standby's name that does not resolve here is mapped, while the cell has one replication connection, to
            # the address that connection comes from; the certificate's name is still verified, so a wrong guess is
            # refused, never trusted. The mapping is made again at every run, one run at a time (cron's, one by hand).
            exec 9</etc/hosts
            flock -w 30 9
            if grep -q ' # mcloud-replicas$' /etc/hosts; then
              kept=$(grep -v ' # mcloud-replicas$' /etc/hosts || true)
              printf '%s\n' "$kept" >/etc/hosts
            fi
            peers=$(here "SELECT HOST FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")
            while IFS=$'\t' read -r id standby_host standby_port _; do
              [[ $id =~ ^[0-9]+$ ]] || continue
              name=server_$id
              if ((id >= 2 && id <= 1001)); then name=standby_$((id - 1)); fi
              if [[ -n $peers && $peers != *$'\n'* && $hosts != *$'\n'* ]] && ! getent hosts "$standby_host" >/dev/null; then
                echo "${peers%:*} $standby_host # mcloud-replicas" >>/etc/hosts
              fi
              if ! status=$(there "$standby_host" "$standby_port" "\#(dialect.status)\G SHOW GLOBAL STATUS LIKE '\#(dialect.replicaSemiSync)'\G"); then
                printf '%s\tunreachable\tasync\t0\t0\n' "$name"
                continue
              fi
              case "$(field \#(dialect.ioRunning) "$status"):$(field \#(dialect.sqlRunning) "$status")" in
                Yes:Yes) state=streaming ;;
                Yes:*) state=sql-stopped ;;
                Connecting:*) state=connecting ;;
                *) state=io-stopped ;;
              esac
              sync=async
              if [ "$(field Value "$status")" = ON ] && [ "$primary_sync" = ON ]; then sync=semi-sync; fi
              lag=$(field \#(dialect.behind) "$status")
              [[ $lag =~ ^[0-9]+$ ]] || lag=0
              file=$(field \#(dialect.executedFile) "$status")
              position=$(field \#(dialect.executedPosition) "$status")
              bytes=0
              if [ -n "$file" ] && [[ $position =~ ^[0-9]+$ ]]; then
                bytes=$(here 'SHOW BINARY LOGS' | awk -v file="$file" -v position="$position" \
                  '$1 == file { on = 1 } on { total += $2 } END { printf "%.0f\n", (on && total > position) ? total - position : 0 }')
              fi
              printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$state" "$sync" "$lag" "$bytes"
            done <<<"$hosts" | sort
            """#,
        ]
    }
}
