import MCloudCore

/// A MariaDB primary's continuous archive in its DR leg (docs/dr.md, "MariaDB: binary logs"): the primary writes a
/// row-based binary log with GTIDs, and `mcloud-binlog`, run every `interval` seconds by a systemd timer, closes the log
/// being written when a transaction went in since the last close (`FLUSH BINARY LOGS`) and ships each closed log the
/// leg has not had, oldest first, encrypted with age to the leg's recipient as the dumps are, with its size and SHA-256,
/// to `<server>/binlog/<lineage>/<log>.age`, then writes `<server>/binlog/status.json`. Every dump says which lineage
/// follows it and where in the log it stands (`--master-data=2`), so a restore loads the newest dump and replays the
/// shipped logs from there
/// (`mcloud-restore`), up to a moment when one is asked for. What the leg can lose: the interval, then the push.
public enum BinaryLogArchive {
    public static let script = "/usr/local/sbin/mcloud-binlog"
    static let serviceUnit = "/etc/systemd/system/mcloud-binlog.service"
    static let timerUnit = "/etc/systemd/system/mcloud-binlog.timer"
    /// Seconds between two closes of the log: the RPO's bound, with the push.
    public static let interval = 30
    /// The log's lineage: a random id kept beside the data directory, made once per data directory. Two servers of
    /// one name (a primary and a failover's or a test's second) number their logs alike; each ships under its own id,
    /// and each dump names the id of the logs that follow it.
    static let lineage = #"""
        log_id() {
          local file=$MCLOUD_MOUNT/mcloud-log-id tmp
          if [ ! -s "$file" ]; then
            tmp=$(mktemp "$MCLOUD_MOUNT/.mcloud-log-id.XXXXXX")
            od -An -N8 -tx1 /dev/urandom | tr -d ' \n' >"$tmp"
            ln "$tmp" "$file" 2>/dev/null || true
            rm -f "$tmp"
          fi
          cat "$file"
        }
        """#

    public static func prefix(server: String) -> String { "\(server)/binlog/" }
    public static func statusKey(server: String) -> String { "\(server)/binlog/status.json" }

    /// What `mcloud-binlog` last wrote to `statusKey`: the newest log shipped, when it was closed and shipped, and
    /// what failed, if anything did.
    public struct Status: Sendable, Hashable {
        public var newest: String?
        public var closedAt: Int?
        public var shippedAt: Int?
        public var error: String?

        public init(newest: String?, closedAt: Int?, shippedAt: Int?, error: String?) {
            self.newest = newest
            self.closedAt = closedAt
            self.shippedAt = shippedAt
            self.error = error
        }

        /// The status object's JSON; nil when it is not one.
        public init?(json text: String) {
            guard let document = try? JSONParser.parse(Array(text.utf8)), document["server"]?.stringValue != nil else { return nil }
            self.init(
                newest: document["newest"]?.stringValue, closedAt: document["closedAt"]?.stringValue.flatMap(BackupStatus.time),
                shippedAt: document["shippedAt"]?.stringValue.flatMap(BackupStatus.time), error: document["error"]?.stringValue
            )
        }

        /// Why the shipping cannot be relied on: its last run failed. An idle primary ships nothing and is not flagged.
        public var problems: [String] { error.map { ["shipping the binary log failed: \($0)"] } ?? [] }
    }

    /// Whether `vm` ships its log: a primary whose recipe keeps one and whose dumps go encrypted into a DR bucket;
    /// never a standby (its log is its primary's) nor a drill's scratch server (it would write into the leg it came from).
    static func ships(_ vm: DatabaseVM) -> Bool {
        vm.recipe.logArchive != nil && vm.backup?.bucket != nil && vm.archive == nil && vm.dumpRecipient != nil
            && vm.access?.replication?.standbyName == nil && vm.recoveryPoint?.drill != true
    }

    static func files(_ vm: DatabaseVM) -> [DatabaseUserData.File] {
        guard ships(vm) else { return [] }
        return [
            .init(path: script, permissions: "0755", content: shipper),
            .init(path: serviceUnit, permissions: "0644", content: service),
            .init(path: timerUnit, permissions: "0644", content: timer),
        ]
    }

    /// `MCLOUD_LOG_ARCHIVE` turns on the binary log and the dumps' position; a restore to a moment stops its replay
    /// there (`mariadb-binlog --stop-datetime`, which reads the server's time zone: the VM's, UTC).
    static func settings(_ vm: DatabaseVM) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = ships(vm) ? [("MCLOUD_LOG_ARCHIVE", "1")] : []
        if vm.recipe.logArchive != nil, let point = vm.recoveryPoint, point.archive == nil, let time = point.targetTime {
            pairs.append(("MCLOUD_RESTORE_STOP_AT", stopTime(time)))
        }
        return pairs
    }

    /// `2026-12-05T22:27:00Z` as `mariadb-binlog --stop-datetime` reads it: `2026-12-05 22:27:00`.
    static func stopTime(_ rfc3339: String) -> String {
        let text = String(rfc3339.map { $0 == "T" ? " " : $0 })
        return text.hasSuffix("Z") ? String(text.dropLast()) : text
    }

    /// MariaDB's steps. A close is decided by the GTID position (`@@gtid_binlog_pos`), which only a transaction
    /// moves, so an idle server opens no new log every interval. The replay drops each transaction's logged GTID
    /// sequence number: the dump's load took numbers of this server's own above them, and strict mode refuses a
    /// lower one; each transaction takes this server's next.
    static let mariadb = Recipe.LogArchive(
        close: [
            #"""
            dir=$(dirname "$(mariadb -N -B -e 'SELECT @@log_bin_basename')")
            [ "$dir" != . ] || { echo "mcloud-engine close-log: the binary log is off" >&2; exit 1; }
            written=$(mariadb -N -B -e 'SELECT @@gtid_binlog_pos')
            mkdir -p /var/lib/mcloud
            if [ "$written" != "$(cat /var/lib/mcloud/binlog-closed-at 2>/dev/null || true)" ]; then
              mariadb -e 'FLUSH BINARY LOGS'
              echo "$written" >/var/lib/mcloud/binlog-closed-at
            fi
            current=$(mariadb -N -B -e 'SHOW MASTER STATUS' | cut -f 1)
            mariadb -N -B -e 'SHOW BINARY LOGS' | awk -v current="$current" -v dir="$dir" '$1 != current { print dir "/" $1 }'
            """#,
        ],
        position: [
            #"""
            (gunzip -c "$IN" 2>/dev/null || true) | awk -F "'" '
              /^-- mcloud-log-id: [0-9a-f]+$/ { id = $0; sub(/^-- mcloud-log-id: /, "", id) }
              /^-- CHANGE MASTER TO MASTER_LOG_FILE=/ { position = $3; gsub(/[^0-9]/, "", position); if (id != "") print id, $2, position; exit }'
            """#,
        ],
        replay: [
            #"""
            : "${LOGS:?the binary logs to replay}" "${LOG_START:?the position in the first}"
            read -ra logs <<<"$LOGS"
            options=("--start-position=$LOG_START")
            [ -z "${STOP_AT:-}" ] || options+=("--stop-datetime=$STOP_AT")
            TZ=UTC mariadb-binlog "${options[@]}" "${logs[@]}" | sed -e '/^\/\*!100001 SET @@session\.gtid_seq_no=[0-9]*\*\/\/\*!\*\/;$/d' | mariadb
            """#,
        ]
    )

    static let service = """
        [Unit]
        Description=mcloud: ship this primary's closed binary logs to the DR bucket, encrypted

        [Service]
        Type=oneshot
        ExecStart=\(script)

        """

    static let timer = """
        [Unit]
        Description=mcloud: close and ship the binary log every \(interval) s

        [Timer]
        OnActiveSec=\(interval)s
        OnUnitActiveSec=\(interval)s
        AccuracySec=1s

        [Install]
        WantedBy=timers.target

        """

    static let shipper = #"""
        #!/bin/bash
        # Written by mcloud: closes this primary's binary log when it holds a new transaction and ships every closed log
        # the DR bucket has not had, oldest first, encrypted with age to the leg's recipient, with its size and SHA-256;
        # then <server>/binlog/status.json. Run every \#(interval) s by mcloud-binlog.timer (docs/dr.md, "MariaDB: binary logs").
        set -uo pipefail
        \#(DatabaseUserData.environment)
        \#(DatabaseUserData.s3Function)
        \#(lineage)
        mkdir -p /var/lib/mcloud
        exec 9>/var/lib/mcloud/binlog.lock
        flock -n 9 || exit 0
        [ -n "${MCLOUD_BACKUP_RECIPIENT:-}" ] || { echo "mcloud-binlog: no age recipient (MCLOUD_BACKUP_RECIPIENT); a log never leaves in plain text" >&2; exit 1; }
        # Nothing to close while the engine restarts or loads a dump.
        mcloud-engine ready 2>/dev/null || exit 0
        closed=$(mcloud-engine close-log) || { echo "mcloud-binlog: closing the binary log failed" >&2; exit 1; }
        id=$(log_id)
        state=/var/lib/mcloud/binlog-shipped/$id
        mkdir -p "$state"
        work=$(mktemp -d)
        trap 'rm -rf "$work"' EXIT
        error="" shipped=0
        # Oldest first, and none after one that failed: the leg never holds a log whose predecessor it lacks.
        while read -r log; do
          [ -n "$log" ] || continue
          name=${log##*/}
          [ ! -e "$state/$name" ] || continue
          closed_at=$(date -u -r "$log" +%Y-%m-%dT%H:%M:%SZ)
          age -r "$MCLOUD_BACKUP_RECIPIENT" <"$log" >"$work/$name.age" || { error="encrypting $name failed"; break; }
          size=$(stat -c %s "$work/$name.age")
          sum=$(sha256sum "$work/$name.age" | cut -d ' ' -f 1)
          s3 s3 cp --only-show-errors "$work/$name.age" "s3://$MCLOUD_BACKUP_BUCKET/$MCLOUD_SERVER/binlog/$id/$name.age" \
            --metadata "sha256=$sum,size=$size" || { error="uploading $name failed"; break; }
          rm -f "$work/$name.age"
          echo "$closed_at" >"$state/$name"
          printf 'newest=%s\nclosed_at=%s\nshipped_at=%s\n' "$id/$name" "$closed_at" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >/var/lib/mcloud/binlog-last
          shipped=$((shipped + 1))
        done <<<"$closed"
        [ "$shipped" -gt 0 ] || [ -n "$error" ] || exit 0
        newest="" closed_at="" shipped_at=""
        # shellcheck source=/dev/null
        if [ -r /var/lib/mcloud/binlog-last ]; then . /var/lib/mcloud/binlog-last; fi
        text() { if [ -n "$1" ]; then printf '"%s"' "$1"; else printf null; fi; }
        printf '{"server": %s, "newest": %s, "closedAt": %s, "shippedAt": %s, "error": %s}\n' "$(text "$MCLOUD_SERVER")" "$(text "$newest")" \
          "$(text "$closed_at")" "$(text "$shipped_at")" "$(text "$error")" >"$work/status.json"
        s3 s3 cp --only-show-errors --content-type application/json "$work/status.json" "s3://$MCLOUD_BACKUP_BUCKET/$MCLOUD_SERVER/binlog/status.json" ||
          error=${error:-"writing the status object failed"}
        [ -z "$error" ] || { echo "mcloud-binlog: $error" >&2; exit 1; }
        echo "mcloud-binlog: shipped $shipped, the newest $newest (closed $closed_at)"

        """#
}
