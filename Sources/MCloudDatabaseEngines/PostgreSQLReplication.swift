import MCloudCore
import MCloudSecrets

/// PostgreSQL's streaming replication between a cell's primary and its standbys (docs/databases.md, "Standbys"), over
/// the cell's verified TLS: each standby seeds itself with `pg_basebackup` as the `replicator` role, through a
/// replication slot of its own name, and streams from then on; the primary waits for one of them at every commit
/// (`synchronous_standby_names = 'ANY 1 (...)'`), so nothing acknowledged is lost while one standby is left. Every
/// member can take either role: each has the replicator's password file and admits the others for replication, so
/// that a switchover can swap the primary with a standby.
enum PostgreSQLReplication {
    /// The primary's part, which `secure` loads once the clients' users are made: the replication user with its
    /// verifier, a slot per standby, and the settings that take effect with `secure`'s restart.
    static let primarySQLPath = "/etc/mcloud/access/replication.sql"
    /// The login to the primary, as a libpq password file: every host and port, the `replication` pseudo-database.
    /// Every member has it: a standby follows with it, and a primary once a switchover has made it a standby.
    static let passwordFilePath = "/etc/mcloud/access/replication.pgpass"
    /// Where the server finds its login and the CA, owned by postgres as libpq requires; `secure` installs them.
    static let installedPasswordFile = "/etc/mcloud/tls/postgres/replication.pgpass"
    static let installedAuthority = "/etc/mcloud/tls/postgres/ca.crt"

    static func files(_ replication: ServerReplication) -> [DatabaseUserData.File] {
        let line = "*:*:replication:\(ReplicationCredential.user):\(replication.password ?? "")\n"
        var files = [DatabaseUserData.File(path: passwordFilePath, permissions: "0600", content: line)]
        if case .primary(let standbys, _) = replication.role {
            files.insert(DatabaseUserData.File(path: primarySQLPath, permissions: "0600", content: primarySQL(standbys: standbys, verifier: replication.verifier)), at: 0)
        }
        return files
    }

    /// Every member admits the replication user from the others' addresses, only over TLS with its password: the
    /// primary for its standbys, a standby for the day a switchover makes it the primary. The lines go before the
    /// refusals of `AccessFiles.postgresHBA`.
    static func hbaLines(_ replication: ServerReplication?) -> [String] {
        (replication?.role.cidrs ?? []).map { "hostssl replication \(ReplicationCredential.user) \($0) scram-sha-256" }
    }

    /// `secure`'s part for every member: the login and the CA installed for postgres where `primary_conninfo` finds
    /// them, when the server has a login (a member of a cell with standbys).
    static let installLogin = #"""
        if [ -s \#(passwordFilePath) ]; then
          install -o postgres -g postgres -m 644 \#(AccessFiles.authorityPath) \#(installedAuthority)
          install -o postgres -g postgres -m 600 \#(passwordFilePath) \#(installedPasswordFile)
        fi
        """#

    /// `$conninfo`: the libpq connection string to `$MCLOUD_PRIMARY_HOST` as the replicator, which `follow` seeds with
    /// and `demote` follows the new primary with. Verified TLS against the cell's CA, the password from the file,
    /// `application_name` the member's own name from the shell variable `name` (its slot and its name in
    /// `synchronous_standby_names`). `channel_binding=disable`: libpq has no channel binding for Ed25519
    /// certificates (docs/connectivity.md).
    static func conninfo(name: String) -> String {
        #"""
        conninfo="host=$MCLOUD_PRIMARY_HOST${MCLOUD_PRIMARY_ADDRESS:+ hostaddr=$MCLOUD_PRIMARY_ADDRESS} port=$MCLOUD_PRIMARY_PORT user=\#(ReplicationCredential.user)"
        conninfo="$conninfo passfile=\#(installedPasswordFile) sslmode=verify-full sslrootcert=\#(installedAuthority) channel_binding=disable"
        conninfo="$conninfo application_name=$\#(name) connect_timeout=10"
        """#
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
    /// until it answers with its own. `-R` writes `standby.signal` and the `primary_conninfo` (`conninfo`, with the
    /// password file, not the password) and `primary_slot_name` the standby streams with; the backup brings the
    /// primary's TLS settings, whose files are the standby's own.
    static func follow(major: String, service: String) -> [String] {
        let data = "/var/lib/postgresql/\(major)/main"
        return [
            PostgreSQLRecipes.secure(psql: "psql", service: service)[0],
            conninfo(name: "MCLOUD_STANDBY_NAME") + "\n" + #"""
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
