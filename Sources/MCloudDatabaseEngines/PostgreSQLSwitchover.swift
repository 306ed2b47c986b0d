/// How a PostgreSQL member learns of a switchover (docs/databases.md, "Switchover"): mcloud takes no connection to a
/// VM, so the order travels through the cell's DR bucket, which every member of a cell that archives reaches with
/// the leg's keys. `mcloud-switchover`, run every 10 s by a systemd timer, reads `SwitchoverOrder`'s object, checks its
/// Ed25519 signature against the cell's public key (`/etc/mcloud/switchover.pub`) with OpenSSL, the cell, the
/// deadline and the serial, and does its member's part once: the named primary runs `mcloud-engine demote` toward the
/// target and writes the LSN it printed, the target waits for that and runs `mcloud-engine promote` and takes over the
/// replication report (`ReplicationReport`), and each other member the order names waits for the target's promotion
/// and runs `mcloud-engine repoint` toward it; each writes its step (`SwitchoverOrder.stepKey`), which the command
/// reads.
public enum PostgreSQLSwitchover {
    public static let script = "/usr/local/sbin/mcloud-switchover"
    public static let publicKeyPath = "/etc/mcloud/switchover.pub"
    static let serviceUnit = "/etc/systemd/system/mcloud-switchover.service"
    static let timerUnit = "/etc/systemd/system/mcloud-switchover.timer"
    /// Member names are `DatabaseReplication.standbyName(copy:)`: the first primary is `standby_0`.
    static let firstPrimary = "standby_0"

    /// Whether `vm` takes orders: a PostgreSQL member of a cell with standbys that reaches the archive's bucket.
    static func takesOrders(_ vm: DatabaseVM) -> Bool {
        vm.archive != nil && vm.access?.replication?.switchoverKey != nil
    }

    static func files(_ vm: DatabaseVM) -> [DatabaseUserData.File] {
        guard takesOrders(vm), let key = vm.access?.replication?.switchoverKey else { return [] }
        return [
            .init(path: publicKeyPath, permissions: "0644", content: key),
            .init(path: script, permissions: "0755", content: agent),
            .init(path: serviceUnit, permissions: "0644", content: service),
            .init(path: timerUnit, permissions: "0644", content: timer),
        ]
    }

    /// The member's own name and its cell, which an order must name.
    static func settings(_ vm: DatabaseVM) -> [(name: String, value: String)] {
        guard takesOrders(vm), let replication = vm.access?.replication else { return [] }
        return [("MCLOUD_MEMBER", replication.standbyName ?? firstPrimary), ("MCLOUD_CELL", replication.cell)]
    }

    /// OpenSSL checks the order's signature.
    static func packages(_ vm: DatabaseVM) -> [String] { takesOrders(vm) ? ["openssl"] : [] }

    static let service = """
        [Unit]
        Description=mcloud: this member's part of a signed switchover order in the DR bucket

        [Service]
        Type=oneshot
        ExecStart=\(script)

        """

    static let timer = """
        [Unit]
        Description=mcloud: look for a switchover order every 10 s

        [Timer]
        OnActiveSec=10s
        OnUnitActiveSec=10s
        AccuracySec=1s

        [Install]
        WantedBy=timers.target

        """

    static let agent = #"""
        #!/bin/bash
        # Written by mcloud: this member's part of a signed switchover order in the DR bucket (docs/databases.md,
        # "Switchover"); run every 10 s by mcloud-switchover.timer.
        set -euo pipefail
        \#(DatabaseUserData.environment)
        \#(DatabaseUserData.s3Function)
        control="s3://$MCLOUD_BACKUP_BUCKET/${MCLOUD_ARCHIVE%%/*}/control"
        acted=/var/lib/mcloud/switchover.serial
        mkdir -p /var/lib/mcloud
        work=$(mktemp -d)
        trap 'rm -rf "$work"' EXIT
        # report NAME STEP [LSN] [ERROR]: this member's step, as <control>/NAME.<member>.json.
        report() {
          jq -cn --arg member "$MCLOUD_MEMBER" --arg step "$2" --arg lsn "${3:-}" --arg error "${4:-}" --arg at "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
            '{member: $member, step: $step, lsn: (if $lsn == "" then null else $lsn end), at: $at, error: (if $error == "" then null else $error end)}' \
            >"$work/step.json"
          s3 s3 cp --only-show-errors --content-type application/json "$work/step.json" "$control/$1.$MCLOUD_MEMBER.json"
          [ -z "${4:-}" ] || { echo "mcloud-switchover: $4" >&2; return 1; }
        }
        # No order, or none readable now: nothing to do.
        s3 s3 cp --only-show-errors "$control/switchover.json" "$work/order.json" 2>/dev/null || exit 0
        s3 s3 cp --only-show-errors "$control/switchover.sig" "$work/order.sig.txt" 2>/dev/null || exit 0
        # Whoever can write the bucket cannot sign: an order the cell's key did not sign is refused, once per order.
        if ! base64 -d "$work/order.sig.txt" >"$work/order.sig" 2>/dev/null \
          || ! openssl pkeyutl -verify -pubin -inkey \#(publicKeyPath) -rawin -in "$work/order.json" -sigfile "$work/order.sig" >/dev/null 2>&1; then
          digest=$(sha256sum "$work/order.json" | cut -d ' ' -f 1)
          [ "$(cat /var/lib/mcloud/switchover.refused 2>/dev/null || true)" != "$digest" ] || exit 1
          echo "$digest" >/var/lib/mcloud/switchover.refused
          report refused refused "" "an order in the bucket is not signed by the cell's key: refused"
        fi
        field() { jq -r --arg name "$1" '.[$name] // "" | if type == "array" then join(" ") else tostring end' "$work/order.json"; }
        serial=$(field serial)
        [[ "$serial" =~ ^[0-9]+$ ]] || exit 1
        [ "$serial" -gt "$(cat "$acted" 2>/dev/null || echo 0)" ] || exit 0
        # Acted on once, whatever the outcome: the command makes a new order (a new serial) to try again.
        echo "$serial" >"$acted"
        [ "$(field cell)" = "$MCLOUD_CELL" ] || report "$serial" refused "" "the order is for cell $(field cell), this member is of $MCLOUD_CELL"
        [ "$(date +%s)" -le "$(field notAfter)" ] || report "$serial" expired "" "the order expired at $(date -u -d "@$(field notAfter)" +%Y-%m-%dT%H:%M:%SZ)"
        primary=$(field primary) target=$(field target)
        if [ "$MCLOUD_MEMBER" = "$primary" ]; then
          address=$(field targetAddress)
          if lsn=$(env MCLOUD_MEMBER_NAME="$MCLOUD_MEMBER" MCLOUD_PRIMARY_HOST="$(field targetHost)" MCLOUD_PRIMARY_PORT="$(field targetPort)" \
            ${address:+MCLOUD_PRIMARY_ADDRESS="$address"} mcloud-engine demote 2>"$work/error"); then
            # A standby now: its new primary reports the cell's standbys.
            rm -f /etc/cron.d/mcloud-replication
            report "$serial" demoted "$lsn"
          else
            report "$serial" failed "" "demote: $(tail -n 1 "$work/error")"
          fi
        elif [ "$MCLOUD_MEMBER" = "$target" ]; then
          # The demoted primary's shutdown checkpoint, within 120 s: promote replays past it, so nothing is lost.
          for _ in $(seq 60); do
            s3 s3 cp --only-show-errors "$control/$serial.$primary.json" "$work/primary.json" 2>/dev/null && break
            sleep 2
          done
          [ -s "$work/primary.json" ] || report "$serial" failed "" "$primary reported no demote within 120 s"
          [ "$(jq -r .step "$work/primary.json")" = demoted ] || report "$serial" failed "" "$primary did not demote: $(jq -r '.error // .step' "$work/primary.json")"
          lsn=$(jq -r .lsn "$work/primary.json")
          others=$(field members | tr ' ' '\n' | grep -vx "$MCLOUD_MEMBER" | paste -sd ' ' -)
          if MCLOUD_SWITCHOVER_LSN="$lsn" MCLOUD_MEMBERS="$others" mcloud-engine promote 2>"$work/error"; then
            # The primary now: it reports the others as its standbys every minute, as the first primary did.
            echo "* * * * * root MCLOUD_STANDBYS=$(wc -w <<<"$others") \#(ReplicationReport.script) >>/var/log/mcloud-replication.log 2>&1" \
              >/etc/cron.d/mcloud-replication
            report "$serial" promoted "$lsn"
          else
            report "$serial" failed "" "promote: $(tail -n 1 "$work/error")"
          fi
        elif field members | tr ' ' '\n' | grep -qx "$MCLOUD_MEMBER"; then
          # Another standby: it follows the target once the target has promoted, within 300 s.
          for _ in $(seq 150); do
            s3 s3 cp --only-show-errors "$control/$serial.$target.json" "$work/target.json" 2>/dev/null && break
            sleep 2
          done
          [ -s "$work/target.json" ] || report "$serial" failed "" "$target reported no promotion within 300 s; this member still follows $primary"
          [ "$(jq -r .step "$work/target.json")" = promoted ] \
            || report "$serial" failed "" "$target did not promote: $(jq -r '.error // .step' "$work/target.json"); this member still follows $primary"
          address=$(field targetAddress)
          if env MCLOUD_MEMBER_NAME="$MCLOUD_MEMBER" MCLOUD_PRIMARY_HOST="$(field targetHost)" MCLOUD_PRIMARY_PORT="$(field targetPort)" \
            ${address:+MCLOUD_PRIMARY_ADDRESS="$address"} mcloud-engine repoint >/dev/null 2>"$work/error"; then
            report "$serial" repointed
          else
            report "$serial" failed "" "repoint: $(tail -n 1 "$work/error")"
          fi
        fi

        """#
}
