import MCloudCore
import MCloudSecrets

/// PostgreSQL's streaming replication between a cell's primary and its standbys (docs/databases.md, "Standbys"), over
/// the cell's verified TLS: each standby seeds itself with `pg_basebackup` as the `replicator` role, through a
/// replication slot of its own name, and streams from then on; the primary waits for one of them at every commit
/// (`synchronous_standby_names = 'ANY 1 (...)'`), so nothing acknowledged is lost while one standby is left.
enum PostgreSQLReplication {
    /// The primary's part, which `secure` loads once the clients' users are made: the replication user with its
    /// verifier, a slot per standby, and the settings that take effect with `secure`'s restart.
    static let primarySQLPath = "/etc/mcloud/access/replication.sql"
    /// The standby's login, as a libpq password file: every host and port, the `replication` pseudo-database.
    static let passwordFilePath = "/etc/mcloud/access/replication.pgpass"
    /// Where the standby's server finds its login and the CA, owned by postgres as libpq requires.
    static let installedPasswordFile = "/etc/mcloud/tls/postgres/replication.pgpass"
    static let installedAuthority = "/etc/mcloud/tls/postgres/ca.crt"

    static func files(_ replication: ServerReplication) -> [DatabaseUserData.File] {
        switch replication.role {
        case .primary(let standbys, _):
            return [DatabaseUserData.File(path: primarySQLPath, permissions: "0600", content: primarySQL(standbys: standbys, verifier: replication.verifier))]
        case .standby:
            let line = "*:*:replication:\(ReplicationCredential.user):\(replication.password ?? "")\n"
            return [DatabaseUserData.File(path: passwordFilePath, permissions: "0600", content: line)]
        }
    }

    /// The primary admits the replication user from the standbys' addresses, only over TLS with its password; the
    /// lines go before the refusals of `AccessFiles.postgresHBA`.
    static func hbaLines(_ replication: ServerReplication?) -> [String] {
        guard case .primary(_, let cidrs) = replication?.role else { return [] }
        return cidrs.map { "hostssl replication \(ReplicationCredential.user) \($0) scram-sha-256" }
    }

    /// The role made once and given its verifier at every run; a slot per standby, so the primary keeps the WAL a
    /// standby has not received; `wal_log_hints` so that a former primary can be rewound to follow another later.
    static func primarySQL(standbys: [String], verifier: String) -> String {
        let user = ReplicationCredential.user
        var lines = [
            "-- Written by mcloud: the user the standbys replicate as, a slot per standby, and commits that wait for one of them.",
            "SELECT 'CREATE ROLE \(user)' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(user)')",
            "\\gexec",
            "ALTER ROLE \(user) WITH REPLICATION LOGIN PASSWORD '\(verifier)';",
        ]
        for name in standbys {
            lines.append("SELECT pg_create_physical_replication_slot('\(name)') WHERE NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = '\(name)');")
        }
        lines += [
            "ALTER SYSTEM SET wal_log_hints = on;",
            "ALTER SYSTEM SET synchronous_standby_names = 'ANY 1 (\(standbys.joined(separator: ", ")))';",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The standby's `follow`: the TLS files and clients' pg_hba.conf as `secure` installs them, then the cluster the
    /// package made replaced by a base backup of the primary. The primary may still be installing when the standby
    /// boots, or still serving the package's snakeoil certificate, which verification refuses, so the backup is tried
    /// until it answers with its own. `-R` writes `standby.signal` and the `primary_conninfo` (with
    /// the password file, not the password) and `primary_slot_name` the standby streams with; the backup brings the
    /// primary's TLS settings, whose files are the standby's own. `channel_binding=disable`: libpq has no channel
    /// binding for Ed25519 certificates (docs/connectivity.md).
    static func follow(major: String, service: String) -> [String] {
        let data = "/var/lib/postgresql/\(major)/main"
        return [
            PostgreSQLRecipes.secure(psql: "psql", service: service)[0],
            #"""
            install -o postgres -g postgres -m 644 \#(AccessFiles.authorityPath) \#(installedAuthority)
            install -o postgres -g postgres -m 600 \#(passwordFilePath) \#(installedPasswordFile)
            conninfo="host=$MCLOUD_PRIMARY_HOST${MCLOUD_PRIMARY_ADDRESS:+ hostaddr=$MCLOUD_PRIMARY_ADDRESS} port=$MCLOUD_PRIMARY_PORT user=\#(ReplicationCredential.user)"
            conninfo="$conninfo passfile=\#(installedPasswordFile) sslmode=verify-full sslrootcert=\#(installedAuthority) channel_binding=disable"
            conninfo="$conninfo application_name=$MCLOUD_STANDBY_NAME connect_timeout=10"
            systemctl stop \#(service)
            for _ in $(seq 450); do
              find \#(data) -mindepth 1 -delete
              runuser -u postgres -- pg_basebackup -D \#(data) -R -X stream -c fast -S "$MCLOUD_STANDBY_NAME" -d "$conninfo" && break
              sleep 2
            done
            [ -f \#(data)/standby.signal ] || { echo "mcloud: no base backup of $MCLOUD_PRIMARY_HOST:$MCLOUD_PRIMARY_PORT in 450 tries" >&2; exit 1; }
            """#,
            "systemctl start \(service)",
        ]
    }

    /// The primary's view of each standby: `replay_lag` is null once a standby has replayed everything and the
    /// primary is idle, so nothing outstanding counts as 0 s; the bytes are the WAL it has not replayed.
    static let report = #"""
        runuser -u postgres -- psql -X -At -F $'\t' -p "$PORT" -d postgres -c "SELECT application_name, state, sync_state, COALESCE(round(EXTRACT(EPOCH FROM replay_lag)::numeric, 3), 0), COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), 0) FROM pg_stat_replication ORDER BY application_name"
        """#
}
