extension PostgreSQLArchive {
    /// The files a VM with an archive or an archive recovery point gets: the staged configurations (root-only until
    /// `mcloud-archive` installs them for postgres) and the script.
    static func files(_ vm: DatabaseVM) -> [DatabaseUserData.File] {
        var files: [DatabaseUserData.File] = []
        if let own = vm.archive {
            files.append(.init(path: stagedConfigurationPath, permissions: "0600", content: configuration(own, dataDirectory: vm.recipe.dataDirectory, port: vm.port)))
        }
        if let source = vm.recoveryPoint?.archive {
            files.append(.init(path: stagedRestorePath, permissions: "0600", content: configuration(source, dataDirectory: vm.recipe.dataDirectory, port: vm.port)))
        }
        if !files.isEmpty { files.append(.init(path: script, permissions: "0755", content: archiveScript)) }
        return files
    }

    /// The CAs of the endpoints' certificates the VM's system store lacks (`Repository.certificateAuthority`), its
    /// own bucket's and the recovery point's, once each: cloud-init's `ca_certs` adds them to that store, which
    /// pgBackRest and awscli then read, so the public CAs stay trusted beside them.
    static func authorities(_ vm: DatabaseVM) -> [String] {
        var authorities: [String] = []
        for authority in [vm.archive?.certificateAuthority, vm.recoveryPoint?.archive?.certificateAuthority].compactMap({ $0 }) where !authorities.contains(authority) {
            authorities.append(authority)
        }
        return authorities
    }

    /// The settings `mcloud-archive` reads beside the server's: where the cluster is, and the restore's target.
    static func settings(_ vm: DatabaseVM) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        if vm.archive != nil || vm.recoveryPoint?.archive != nil { pairs.append(("MCLOUD_DATA", vm.recipe.dataDirectory)) }
        if let own = vm.archive { pairs += [("MCLOUD_ARCHIVE", own.path)] }
        if let point = vm.recoveryPoint, let source = point.archive {
            pairs.append(("MCLOUD_RESTORE_ARCHIVE", source.path))
            if let time = point.targetTime { pairs.append(("MCLOUD_RESTORE_TARGET", target(time))) }
            if point.drill { pairs.append(("MCLOUD_RESTORE_DRILL", "1")) }
        }
        return pairs
    }

    /// The packages beside the engine's: pgBackRest, and jq to read its `info --output=json`.
    static func packages(_ vm: DatabaseVM) -> [String] {
        vm.archive != nil || vm.recoveryPoint?.archive != nil ? ["pgbackrest", "jq"] : []
    }

    static let archiveScript = #"""
        #!/bin/bash
        # Written by mcloud: PostgreSQL's continuous archive in the DR bucket with pgBackRest (docs/dr.md).
        # mcloud-archive setup|backup|verify|status|restore
        set -euo pipefail
        \#(DatabaseUserData.environment)
        \#(DatabaseUserData.s3Function)
        mkdir -p /var/lib/mcloud
        pgbr() { runuser -u postgres -- pgbackrest --stanza=mcloud "$@"; }
        sql() { runuser -u postgres -- psql -X -At -v ON_ERROR_STOP=1 -p "$PORT" -d postgres "$@"; }
        # install_configuration STAGED TARGET: the staged file, readable by postgres and no one else but root.
        install_configuration() {
          if [ -e "$1" ]; then
            install -d -o root -g postgres -m 750 /etc/pgbackrest
            install -d -o postgres -g postgres -m 750 /var/log/pgbackrest
            install -o root -g postgres -m 640 "$1" "$2"
            rm -f "$1"
          fi
        }
        answers() {
          for _ in $(seq 900); do
            [ "$(sql -c 'SELECT pg_is_in_recovery()' 2>/dev/null || true)" = f ] && return 0
            sleep 1
          done
          echo "mcloud-archive: PostgreSQL did not come up as a primary in 900 s" >&2
          return 1
        }
        # wal_ranges: pgBackRest verify's detail log on stdin, each continuous run of WAL it found as a JSON array
        # ["archive id", "first segment", "last segment"], one per line: two runs of one timeline have a gap between.
        wal_ranges() {
          sed -n 's/.*DETAIL: archiveId: \([^,]*\), wal start: \([0-9A-F]\{24\}\), wal stop: \([0-9A-F]\{24\}\)$/["\1", "\2", "\3"]/p'
        }
        # verify: pgbackrest verify over the whole repository (every file read and checked, so run after a backup, not
        # every minute); its WAL runs and error go into the next status object.
        verify() {
          local output rc=0 error=""
          output=$(pgbr verify --log-level-console=detail 2>&1) || rc=$?
          [ "$rc" = 0 ] || error="pgbackrest verify exited $rc: $(grep -m 1 -E 'ERROR|WARN' <<<"$output" | sed 's/^.*\(ERROR\|WARN\): *//')"
          jq -cn --arg at "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg error "$error" --argjson ranges "[$(wal_ranges <<<"$output" | paste -sd, -)]" \
            '{verifiedAt: $at, walRanges: $ranges, error: (if $error == "" then null else $error end)}' >/var/lib/mcloud/archive-verify.json
        }
        status() {
          local error=${1:-} attempt info archived="" wal="" failing="" stop="" label="" row
          attempt=$(date -u +%Y-%m-%dT%H:%M:%SZ)
          info=$(pgbr info --output=json 2>/dev/null) || { info=null; error=${error:-"pgbackrest info failed"}; }
          # Failing: the last push failed after the last success, and nothing was archived for two archive_timeouts.
          if row=$(sql -F '|' -f - 2>/var/lib/mcloud/archive-status.err <<'SQL'
        SELECT to_char(last_archived_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), last_archived_wal,
          CASE WHEN last_failed_time > coalesce(last_archived_time, '-infinity')
            AND coalesce(last_archived_time < now() - interval '60 seconds', true)
          THEN 'WAL archiving has failed since ' || to_char(last_failed_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ' (segment ' || last_failed_wal || ')' END
        FROM pg_stat_archiver
        SQL
          ); then
            IFS='|' read -r archived wal failing <<<"$row" || true
            [ -z "$failing" ] || error=${error:-$failing}
          else
            # psql's own words, on one line and without the quotes that would end the JSON string.
            error=${error:-"reading pg_stat_archiver failed: $(tail -n 2 /var/lib/mcloud/archive-status.err | tr -d '\\"' | tr -s '[:space:]' ' ')"}
          fi
          if [ "$info" != null ]; then
            stop=$(jq -r '[.[0].backup[]?.timestamp.stop] | max // empty' <<<"$info")
            label=$(jq -r '.[0].backup[-1].label // empty' <<<"$info")
          fi
          [ -z "$stop" ] || stop=$(date -u -d "@$stop" +%Y-%m-%dT%H:%M:%SZ)
          text() { if [ -n "$1" ]; then printf '"%s"' "$1"; else printf null; fi; }
          printf '{"server": %s, "engine": %s, "version": %s, "lastAttempt": %s, "lastSuccess": %s, "object": %s, "size": null, "sha256": null, "archivedAt": %s, "archivedWAL": %s, "repository": %s, "error": %s, "verify": %s, "pgbackrest": %s}\n' \
            "$(text "$MCLOUD_SERVER")" "$(text "$MCLOUD_ENGINE")" "$(text "$MCLOUD_VERSION")" "$(text "$attempt")" "$(text "$stop")" \
            "$(text "${label:+$MCLOUD_ARCHIVE/backup/mcloud/$label}")" "$(text "$archived")" "$(text "$wal")" "$(text "$MCLOUD_ARCHIVE")" \
            "$(text "$error")" "$(cat /var/lib/mcloud/archive-verify.json 2>/dev/null || echo null)" "$info" >/var/lib/mcloud/backup-status.json
          s3 s3 cp --only-show-errors --content-type application/json \
            /var/lib/mcloud/backup-status.json "s3://$MCLOUD_BACKUP_BUCKET/${MCLOUD_ARCHIVE%%/*}/status.json"
          [ -z "$error" ] || { echo "mcloud-archive: $error" >&2; return 1; }
        }
        # A standby keeps the archive's configuration for when a switchover promotes it, and archives nothing: the
        # primary pushes, backs up, verifies and reports (archive_mode on archives on a primary only).
        standby() { [ "$(sql -c 'SELECT pg_is_in_recovery()' 2>/dev/null || true)" = t ]; }
        case "${1:-}" in
          setup)
            install_configuration /etc/mcloud/archive/pgbackrest.conf /etc/pgbackrest/pgbackrest.conf
            sql -q -c "ALTER SYSTEM SET wal_level = 'replica'" -c "ALTER SYSTEM SET archive_mode = 'on'" \
              -c "ALTER SYSTEM SET archive_command = 'pgbackrest --stanza=mcloud archive-push %p'" -c "ALTER SYSTEM SET archive_timeout = '30'"
            systemctl restart "$MCLOUD_SERVICE"
            if [ -n "${MCLOUD_STANDBY_NAME:-}" ]; then
              for _ in $(seq 300); do mcloud-engine ready 2>/dev/null && break; sleep 1; done
              mcloud-engine ready
              echo "* * * * * root /usr/local/sbin/mcloud-archive status >>/var/log/mcloud-archive.log 2>&1" >/etc/cron.d/mcloud-archive-status
              echo "mcloud-archive: a standby, ready to archive to s3://$MCLOUD_BACKUP_BUCKET/$MCLOUD_ARCHIVE once promoted"
              exit 0
            fi
            answers
            pgbr stanza-create
            pgbr check
            pgbr backup --type=full
            verify
            echo "* * * * * root /usr/local/sbin/mcloud-archive status >>/var/log/mcloud-archive.log 2>&1" >/etc/cron.d/mcloud-archive-status
            status
            echo "mcloud-archive: archiving to s3://$MCLOUD_BACKUP_BUCKET/$MCLOUD_ARCHIVE"
            ;;
          backup)
            if standby; then echo "mcloud-archive: a standby: its primary takes the full backups"; exit 0; fi
            exec 9>/var/lib/mcloud/backup.lock
            flock -n 9 || { echo "mcloud-archive: another backup is running" >&2; exit 1; }
            error=""
            pgbr backup --type=full || error="the full backup failed"
            verify
            status "$error"
            echo "mcloud-archive: full backup in s3://$MCLOUD_BACKUP_BUCKET/$MCLOUD_ARCHIVE"
            ;;
          verify) standby || { verify && status; } ;;
          status) standby || status ;;
          restore)
            # The recovery point's repository, then the newest point it holds or the target: a drill's server never
            # archives (it would push into the production stanza), a failover's archives into a repository of its own.
            install_configuration /etc/mcloud/archive/restore.conf /etc/pgbackrest/restore.conf
            systemctl stop "$MCLOUD_SERVICE"
            find "$MCLOUD_DATA" -mindepth 1 -delete
            options=(--config=/etc/pgbackrest/restore.conf --stanza=mcloud restore "--pg1-path=$MCLOUD_DATA")
            if [ -n "${MCLOUD_RESTORE_TARGET:-}" ]; then options+=(--type=time "--target=$MCLOUD_RESTORE_TARGET" --target-action=promote); fi
            if [ -n "${MCLOUD_RESTORE_DRILL:-}" ]; then options+=(--archive-mode=off); fi
            runuser -u postgres -- pgbackrest "${options[@]}"
            # The lost primary's TLS settings came back with its data; this server's certificate is installed only after
            # the restore (secure, which turns TLS on again), and a drill's scratch server has none.
            if [ ! -e /etc/mcloud/tls/postgres/server.crt ]; then echo "ssl = 'off'" >>"$MCLOUD_DATA/postgresql.auto.conf"; fi
            systemctl start "$MCLOUD_SERVICE"
            answers
            echo "mcloud-archive: restored s3://$MCLOUD_RESTORE_BUCKET/$MCLOUD_RESTORE_ARCHIVE${MCLOUD_RESTORE_TARGET:+ to $MCLOUD_RESTORE_TARGET}"
            ;;
          *) echo "usage: mcloud-archive setup|backup|verify|status|restore" >&2; exit 2 ;;
        esac

        """#
}
