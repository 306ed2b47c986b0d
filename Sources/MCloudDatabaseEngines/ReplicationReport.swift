import MCloudCore

/// A primary with standbys and a DR bucket writes its standbys as it sees them to `<server>/replication.json` every
/// minute (`ReplicationStatus`), which `mcloud backups` reads back: the bucket is the way a VM reports to mcloud, as
/// its backup job's status object does (docs/databases.md, "Standbys"). Where the cell archives, `<server>` is the
/// archive's owner, so the key stays put when a switchover promotes another member.
public enum ReplicationReport {
    public static let script = "/usr/local/sbin/mcloud-replication-report"

    /// The standbys the primary should see; nil on a standby or a server without any.
    static func expectedStandbys(_ vm: DatabaseVM) -> [String]? {
        guard vm.recipe.replication?.report.isEmpty == false, let role = vm.access?.replication?.role else { return nil }
        switch role {
        case .primary(let standbys, _): return standbys.isEmpty ? nil : standbys
        case .standby: return nil
        }
    }

    /// On a primary with standbys, and on every PostgreSQL member that takes switchover orders, whose agent starts
    /// the report once it is promoted (`PostgreSQLSwitchover`).
    static func files(_ vm: DatabaseVM) -> [DatabaseUserData.File] {
        guard expectedStandbys(vm) != nil || PostgreSQLSwitchover.takesOrders(vm), vm.backup?.bucket != nil else { return [] }
        return [DatabaseUserData.File(path: script, permissions: "0755", content: text)]
    }

    /// How many standbys the primary should see: the engine may name them otherwise (Redis by address).
    static func settings(_ vm: DatabaseVM) -> [(name: String, value: String)] {
        guard let standbys = expectedStandbys(vm), vm.backup?.bucket != nil else { return [] }
        return [("MCLOUD_STANDBYS", String(standbys.count))]
    }

    /// A row the engine printed that is not names and numbers is left out and said, so the JSON stays JSON.
    static let text = #"""
        #!/bin/bash
        # Written by mcloud: the standbys as this primary sees them, to <server>/replication.json in the DR bucket; under
        # the archive's owner where the cell archives, so that a member a switchover promoted reports in its place.
        set -uo pipefail
        \#(DatabaseUserData.environment)
        \#(DatabaseUserData.s3Function)
        owner=$MCLOUD_SERVER
        [ -z "${MCLOUD_ARCHIVE:-}" ] || owner=${MCLOUD_ARCHIVE%%/*}
        at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
        error=""
        rows=$(mcloud-engine replicas) || error="the engine did not answer"
        standbys=""
        while IFS=$'\t' read -r name state sync lag bytes; do
          [ -n "$name" ] || continue
          if [[ "$name$state$sync" =~ ^[A-Za-z0-9_.:-]+$ && "$lag" =~ ^[0-9]+(\.[0-9]+)?$ && "$bytes" =~ ^-?[0-9]+$ ]]; then
            standbys+="${standbys:+, }{\"name\": \"$name\", \"state\": \"$state\", \"sync\": \"$sync\", \"lagSeconds\": $lag, \"lagBytes\": $bytes}"
          else
            error="the engine reported a row that is not a standby"
          fi
        done <<<"$rows"
        text() { if [ -n "$1" ]; then printf '"%s"' "$1"; else printf null; fi; }
        mkdir -p /var/lib/mcloud
        printf '{"server": %s, "at": "%s", "expected": %s, "standbys": [%s], "error": %s}\n' \
          "$(text "$MCLOUD_SERVER")" "$at" "$MCLOUD_STANDBYS" "$standbys" "$(text "$error")" >/var/lib/mcloud/replication.json
        s3 s3 cp --only-show-errors --content-type application/json /var/lib/mcloud/replication.json \
          "s3://$MCLOUD_BACKUP_BUCKET/$owner/replication.json"

        """#
}
