import MCloudCore
import MCloudSecrets

/// PostgreSQL's streaming replication between a cell's primary and its standbys (docs/databases.md, "Standbys"), over
/// the cell's verified TLS: each standby seeds itself with `pg_basebackup` as the `replicator` role, through a
/// replication slot of its own name, and streams from then on; the primary waits for one of them at every commit
/// (`synchronous_standby_names = 'ANY 1 (...)'`), so nothing acknowledged is lost while one standby is left. Every
/// member can take either role: each has the replicator's password file and admits the others for replication, and
/// `demote` and `promote` swap the primary with a standby without losing a commit (docs/databases.md, "Switchover").
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

    /// `demote` (`Recipe.Replication.demote`). The refusals first, so that a wrong call changes nothing: the inputs
    /// must be what rendering names (they are written into postgresql.auto.conf), and the server a primary. Then a
    /// fast shutdown by the cluster's unit (Debian's `pg_ctlcluster` stops in fast mode): the server writes its
    /// shutdown checkpoint and each walsender sends all WAL, that checkpoint included, and waits until its standby has
    /// flushed it before the server exits. `pg_controldata` must then say "shut down", and its "Latest checkpoint
    /// location" is the step's output. With the cluster stopped, `standby.signal` is written before the start, so it
    /// never runs as a primary again, not for a moment, and the new upstream goes into postgresql.auto.conf: that is
    /// where `pg_basebackup -R` put the first standby's, and the file PostgreSQL reads last, so no older setting in a
    /// conf.d file or postgresql.conf overrides it, and a later `ALTER SYSTEM` rewrites the file keeping it. The edit
    /// is clean: the previous `primary_conninfo`, `primary_slot_name` and the primary's `synchronous_standby_names`
    /// lines dropped, the others kept, the result renamed over the file.
    static func demote(major: String, service: String) -> [String] {
        let data = "/var/lib/postgresql/\(major)/main"
        return [
            upstreamChecks("demote") + "\n" + #"""
            recovery=$(runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -p "$PORT" -d postgres -c 'SELECT pg_is_in_recovery()')
            [ "$recovery" = f ] || refuse "this server is not a primary (pg_is_in_recovery() is $recovery)"
            """#,
            conninfo(name: "MCLOUD_MEMBER_NAME"),
            "systemctl stop \(service)",
            #"""
            control=$(LC_ALL=C /usr/lib/postgresql/\#(major)/bin/pg_controldata \#(data))
            state=$(sed -n 's/^Database cluster state: *//p' <<<"$control")
            [ "$state" = "shut down" ] || { echo "mcloud-engine demote: the server stopped \"$state\", not cleanly; it stays stopped" >&2; exit 1; }
            sed -n 's/^Latest checkpoint location: *//p' <<<"$control"
            auto=\#(data)/postgresql.auto.conf
            {
              grep -Ev '^[[:space:]]*(primary_conninfo|primary_slot_name|synchronous_standby_names)[[:space:]]*=' "$auto" || true
              echo "primary_conninfo = '$conninfo'"
              echo "primary_slot_name = '$MCLOUD_MEMBER_NAME'"
            } >"$auto.mcloud"
            chown postgres:postgres "$auto.mcloud"
            chmod 600 "$auto.mcloud"
            mv -f "$auto.mcloud" "$auto"
            install -o postgres -g postgres -m 600 /dev/null \#(data)/standby.signal
            """#,
            "systemctl start \(service)",
        ]
    }

    /// What `demote` and `repoint` check first, changing nothing: their inputs are written into the server's settings,
    /// so each must be what rendering names; and the replication login must be there to follow another primary with.
    /// Defines `refuse`, which names the step.
    static func upstreamChecks(_ step: String) -> String {
        #"""
        : "${MCLOUD_MEMBER_NAME:?the name of this server as a standby, standby_0}" "${MCLOUD_PRIMARY_HOST:?the server name of the new primary}"
        : "${MCLOUD_PRIMARY_PORT:?the port of the new primary}"
        refuse() { echo "mcloud-engine \#(step): $1; nothing changed" >&2; exit 1; }
        [[ $MCLOUD_MEMBER_NAME =~ ^[a-z0-9_]+$ ]] || refuse "MCLOUD_MEMBER_NAME \"$MCLOUD_MEMBER_NAME\" is not an engine-safe name"
        [[ $MCLOUD_PRIMARY_HOST =~ ^[A-Za-z0-9._-]+$ ]] || refuse "MCLOUD_PRIMARY_HOST \"$MCLOUD_PRIMARY_HOST\" is not a host name"
        [[ $MCLOUD_PRIMARY_PORT =~ ^[0-9]{1,5}$ ]] || refuse "MCLOUD_PRIMARY_PORT \"$MCLOUD_PRIMARY_PORT\" is not a port"
        [[ ${MCLOUD_PRIMARY_ADDRESS:-0} =~ ^[0-9A-Fa-f.:]+$ ]] || refuse "MCLOUD_PRIMARY_ADDRESS \"$MCLOUD_PRIMARY_ADDRESS\" is not an address"
        [ -s \#(installedPasswordFile) ] || refuse "no replication login in \#(installedPasswordFile) to follow another primary with"
        """#
    }

    /// `promote` (`Recipe.Replication.promote`). Refuses, changing nothing, inputs that are not an LSN and engine-safe
    /// names, and a server that is not in recovery. Every transaction the old primary committed is before its
    /// shutdown checkpoint, so once this standby has replayed past that record (`pg_last_wal_replay_lsn()` strictly
    /// greater than its start, polled for 120 s, then exit 1 without promoting) it has them all. The synchronous names
    /// are set before `pg_promote`, while a standby ignores them: the ones it holds came with the base backup and
    /// name itself, and a primary waiting for itself would never acknowledge a commit. Then a slot per other member,
    /// reserving WAL from now on, so the old primary finds the new timeline's WAL when it connects, and the upstream
    /// settings reset, since a primary has none.
    static let promote = #"""
        : "${MCLOUD_SWITCHOVER_LSN:?the shutdown checkpoint of the old primary, which mcloud-engine demote printed}"
        : "${MCLOUD_MEMBERS:?the names of the other members of the cell}"
        refuse() { echo "mcloud-engine promote: $1; nothing changed" >&2; exit 1; }
        [[ $MCLOUD_SWITCHOVER_LSN =~ ^[0-9A-F]{1,8}/[0-9A-F]{1,8}$ ]] || refuse "MCLOUD_SWITCHOVER_LSN \"$MCLOUD_SWITCHOVER_LSN\" is not an LSN"
        read -ra members <<<"$MCLOUD_MEMBERS"
        [ "${#members[@]}" -gt 0 ] || refuse "MCLOUD_MEMBERS names no member"
        for member in "${members[@]}"; do
          [[ $member =~ ^[a-z0-9_]+$ ]] || refuse "MCLOUD_MEMBERS: \"$member\" is not an engine-safe name"
        done
        sql() { runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -p "$PORT" -d postgres -c "$1"; }
        recovery=$(sql 'SELECT pg_is_in_recovery()')
        [ "$recovery" = t ] || refuse "this server is not a standby (pg_is_in_recovery() is $recovery)"
        replayed=f
        for _ in $(seq 120); do
          replayed=$(sql "SELECT COALESCE(pg_last_wal_replay_lsn() > '$MCLOUD_SWITCHOVER_LSN'::pg_lsn, false)")
          [ "$replayed" = f ] || break
          sleep 1
        done
        [ "$replayed" = t ] || refuse "replayed up to $(sql 'SELECT pg_last_wal_replay_lsn()'), not past $MCLOUD_SWITCHOVER_LSN, in 120 s: not promoted"
        names=$(printf '%s, ' "${members[@]}")
        sql "ALTER SYSTEM SET synchronous_standby_names = 'ANY 1 (${names%, })'"
        sql 'SELECT pg_reload_conf()' >/dev/null
        [ "$(sql 'SELECT pg_promote(true, 60)')" = t ] || { echo "mcloud-engine promote: the server did not finish promoting in 60 s" >&2; exit 1; }
        for member in "${members[@]}"; do
          sql "SELECT pg_create_physical_replication_slot('$member', true) WHERE NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = '$member')" >/dev/null
        done
        sql 'ALTER SYSTEM RESET primary_conninfo'
        sql 'ALTER SYSTEM RESET primary_slot_name'
        sql 'SELECT pg_reload_conf()' >/dev/null
        echo "mcloud-engine promote: the primary, past $MCLOUD_SWITCHOVER_LSN; a commit waits for one of ${names%, }"
        """#

    /// `repoint` (`Recipe.Replication.repoint`), on a standby of the cell other than the switchover's target, once the
    /// target has promoted. Refuses, changing nothing, inputs that are not what rendering names and a server that is
    /// not a standby. PostgreSQL 13 and later take a new `primary_conninfo` and `primary_slot_name` on a reload and
    /// restart the WAL receiver with them, so the standby keeps serving reads; `recovery_target_timeline` is `latest`
    /// by default, so it follows the new primary onto its timeline (it has replayed no further than the demoted
    /// primary's shutdown checkpoint, which the target replayed past before promoting, and the target made its slot).
    /// Done once the WAL receiver streams from the new primary, within 120 s, else exit 1 with what it reads.
    static let repoint = #"""
        \#(upstreamChecks("repoint"))
        sql() { runuser -u postgres -- psql -X -Atq -v ON_ERROR_STOP=1 -p "$PORT" -d postgres -c "$1"; }
        recovery=$(sql 'SELECT pg_is_in_recovery()')
        [ "$recovery" = t ] || refuse "this server is not a standby (pg_is_in_recovery() is $recovery)"
        \#(conninfo(name: "MCLOUD_MEMBER_NAME"))
        sql "ALTER SYSTEM SET primary_conninfo = '$conninfo'"
        sql "ALTER SYSTEM SET primary_slot_name = '$MCLOUD_MEMBER_NAME'"
        sql 'SELECT pg_reload_conf()' >/dev/null
        # sender_host is libpq's PQhost: the host name when hostaddr is given too.
        upstream=$MCLOUD_PRIMARY_HOST
        for _ in $(seq 120); do
          receiver=$(sql 'SELECT status || '"' '"' || COALESCE(sender_host, '"''"') FROM pg_stat_wal_receiver')
          [ "$receiver" != "streaming $upstream" ] || { echo "mcloud-engine repoint: streaming from $upstream"; exit 0; }
          sleep 1
        done
        echo "mcloud-engine repoint: not streaming from $upstream in 120 s (the WAL receiver reads \"${receiver:-none}\")" >&2
        exit 1
        """#

    /// The primary's view of each standby: `replay_lag` is null once a standby has replayed everything and the
    /// primary is idle, so nothing outstanding counts as 0 s; the bytes are the WAL it has not replayed.
    static let report = #"""
        runuser -u postgres -- psql -X -At -F $'\t' -p "$PORT" -d postgres -c "SELECT application_name, state, sync_state, COALESCE(round(EXTRACT(EPOCH FROM replay_lag)::numeric, 3), 0), COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), 0) FROM pg_stat_replication ORDER BY application_name"
        """#
}
