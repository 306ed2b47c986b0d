import MCloudSecrets

/// The one renderer of a database VM's cloud-init user data, for every provider: a `#cloud-config` whose
/// `write_files` put the settings (`/etc/mcloud/database.conf`), the bucket's keys (root-only
/// `/etc/mcloud/backup.env`), a vendor repository's source and pin, and five scripts in place, whose `ca_certs` adds a
/// private DR endpoint's CA to the system store, and whose `runcmd`
/// enables the metadata guard and runs `mcloud-db-setup` once:
/// - `mcloud-engine prepare|configure|secure|follow|replicas|demote|promote|repoint|ready|dump|restore`: the recipe's
///   steps, each in a shell of its own (`demote`, `promote` and `repoint` are a switchover's, docs/databases.md,
///   "Switchover");
/// - `mcloud-db-setup`: waits for the data disk under the names the provider gave, formats it if blank (label
///   `mcloud-data`), mounts it where the recipe says, installs the engine, configures it for the port, waits until
///   it answers, with clients (`ServerAccess`) turns TLS on and makes their users from `/etc/mcloud/access` and
///   `/etc/mcloud/tls` (`AccessFiles`), and installs the backup schedule as `/etc/cron.d/mcloud-backup`;
/// - `mcloud-backup`: one dump, encrypted with `age -r` to the leg's recipient (`DumpEncryption`), its size and
///   SHA-256 recorded as S3 metadata of the object it uploads to `s3://<bucket>/<server>/<time>.<ext>.age`, objects
///   older than the retention deleted, and a status object `<server>/status.json` (`BackupStatus`) written whether it
///   worked or not;
/// - `mcloud-restore [FILE | s3://BUCKET/KEY]`: the newest backup the status object names by default, checked
///   against its recorded SHA-256, decrypted with `age -d -i` when it is an `.age` dump, loaded with the recipe's
///   restore step; `mcloud-restore --recovery-point` loads
///   the VM's recovery point (a failover's or a drill's) from its own bucket with its own keys and reports the
///   outcome beside it, which `mcloud-db-setup` runs once, before the backup schedule is installed.
/// - `mcloud-metadata-guard`, enabled as a systemd unit before the setup runs and at every boot: the metadata
///   service, which serves this user data, closed to every user but root.
/// Nothing reads the metadata service: the disk, the schedule and the bucket are all in the user data.
public enum DatabaseUserData {
    public static let settingsPath = "/etc/mcloud/database.conf"
    public static let secretsPath = "/etc/mcloud/backup.env"
    /// The keys of the recovery point's bucket, root-only like the backup's.
    public static let restoreSecretsPath = "/etc/mcloud/restore.env"
    public static let engineScript = "/usr/local/sbin/mcloud-engine"
    public static let setupScript = "/usr/local/sbin/mcloud-db-setup"
    public static let backupScript = "/usr/local/sbin/mcloud-backup"
    public static let restoreScript = "/usr/local/sbin/mcloud-restore"
    public static let metadataGuardScript = "/usr/local/sbin/mcloud-metadata-guard"
    public static let metadataGuardUnitName = "mcloud-metadata-guard.service"
    public static let metadataGuardUnit = "/etc/systemd/system/\(metadataGuardUnitName)"
    /// The bucket object each server's backup job writes after every run.
    public static func statusKey(server: String) -> String { "\(server)/status.json" }
    /// The object a primary with standbys writes every minute: `ReplicationStatus`.
    public static func replicationKey(server: String) -> String { "\(server)/replication.json" }
    /// The object a server that loaded a recovery point writes beside it: `RestoreReport`.
    public static func restoreReportKey(server: String) -> String { "\(server)/restored.json" }

    /// When the backup stored at `key` was taken, UTC seconds since 1970: from the `<server>/<stamp>.<ext>` name the
    /// job gives it (`20261201T100000Z`), else from `storedAt` (S3's `LastModified`); nil for a status object or a
    /// switchover's order and steps (`<server>/control/`).
    public static func backupTime(key: String, storedAt: String) -> Int? {
        guard !["status.json", "restored.json", "replication.json"].contains(where: { key == $0 || key.hasSuffix("/" + $0) }),
              key.split(separator: "/").dropLast().last != "control" else { return nil }
        let name = key.split(separator: "/").last.map(String.init) ?? key
        let stamp = Array(name.prefix(16))
        if stamp.count == 16, stamp[8] == "T", stamp[15] == "Z" {
            let digits = String(stamp)
            func part(_ from: Int, _ count: Int) -> Substring { digits.dropFirst(from).prefix(count) }
            let text = "\(part(0, 4))-\(part(4, 2))-\(part(6, 2))T\(part(9, 2)):\(part(11, 2)):\(part(13, 2))Z"
            if let time = BackupStatus.time(text) { return time }
        }
        return BackupStatus.time(String(storedAt.prefix(19)) + "Z")
    }

    public struct File: Sendable, Hashable {
        public var path: String
        public var permissions: String
        public var content: String
    }

    /// `#cloud-config` text; byte-identical for the same VM. Every value, whatever it holds, stays inside its own
    /// scalar (`CloudConfigText`): a bucket key or a name never becomes a key of the document.
    public static func render(_ vm: DatabaseVM) -> String {
        let recipe = vm.recipe
        let source = recipe.repository.map { "\($0.vendor)'s repository" } ?? "the distribution's packages"
        var lines = [
            "#cloud-config",
            "# Written by mcloud for \(CloudConfigText.escaped(vm.address)): \(recipe.engine.title) \(recipe.series) on \(recipe.family.title) from \(source), port \(vm.port).",
            "write_files:",
        ]
        for file in files(vm) {
            lines += ["  - path: \(CloudConfigText.scalar(file.path))", "    owner: root:root", "    permissions: \(CloudConfigText.doubleQuoted(file.permissions))"]
            lines += CloudConfigText.entry("content", file.content, indent: 4)
        }
        let authorities = PostgreSQLArchive.authorities(vm)
        if !authorities.isEmpty {
            lines += ["ca_certs:", "  trusted:"] + authorities.map { "    - \(CloudConfigText.doubleQuoted($0))" }
        }
        // The guard first: cloud-init has read the user data by now, and nothing but root needs the metadata service again.
        lines += ["runcmd:", "  - [systemctl, enable, --now, \(metadataGuardUnitName)]", "  - [\(setupScript)]", ""]
        return lines.joined(separator: "\n")
    }

    /// Every file the user data writes, in order; the scripts are what shellcheck and `bash -n` check.
    public static func files(_ vm: DatabaseVM) -> [File] {
        var files = [File(path: settingsPath, permissions: "0644", content: settings(vm))]
        if let secrets = vm.backup?.bucket?.secrets, !secrets.isEmpty {
            files.append(File(path: secretsPath, permissions: "0600", content: assignments(secrets)))
        }
        if let secrets = vm.recoveryPoint?.bucket.secrets, !secrets.isEmpty {
            files.append(File(path: restoreSecretsPath, permissions: "0600", content: assignments(secrets)))
        }
        if let identity = vm.recoveryPoint?.identity {
            files.append(File(path: DumpEncryption.identityPath, permissions: "0600", content: identity.keyFile))
        }
        if let access = vm.access { files += AccessFiles.files(vm.recipe, access) }
        files += PostgreSQLArchive.files(vm)
        files += PostgreSQLSwitchover.files(vm)
        files += BinaryLogArchive.files(vm)
        files += ReplicationReport.files(vm)
        if let repository = vm.recipe.repository {
            files.append(File(path: stagedSourcesPath(repository), permissions: "0644", content: repository.sources))
            if let preferences = repository.preferences { files.append(File(path: repository.preferencesPath, permissions: "0644", content: preferences)) }
        }
        files += [
            File(path: metadataGuardScript, permissions: "0755", content: metadataGuard),
            File(path: metadataGuardUnit, permissions: "0644", content: metadataGuardService),
            File(path: engineScript, permissions: "0755", content: engine(vm.recipe)),
            File(path: setupScript, permissions: "0755", content: setup),
            File(path: backupScript, permissions: "0755", content: backup),
            File(path: restoreScript, permissions: "0755", content: restore),
        ]
        return files
    }

    /// The vendor source waits here until its key is in place: apt refuses a source whose keyring is missing.
    static func stagedSourcesPath(_ repository: VendorRepository) -> String { "/etc/mcloud/apt/\(repository.name).sources" }

    /// The steps `mcloud-engine` runs, as its usage says them.
    static let steps = ["prepare", "configure", "secure", "follow", "replicas", "demote", "promote", "repoint", "ready", "dump", "restore", "close-log", "log-position", "replay-log"]

    /// Single-quoted for sh: nothing inside is expanded.
    public static func quoted(_ value: String) -> String {
        "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    private static func assignments(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { "\($0.name)=\(quoted($0.value))\n" }.joined()
    }

    static func settings(_ vm: DatabaseVM) -> String {
        let recipe = vm.recipe
        let bucket = vm.backup?.bucket
        var pairs: [(name: String, value: String)] = [
            ("MCLOUD_ADDRESS", vm.address), ("MCLOUD_SERVER", vm.server), ("MCLOUD_ENGINE", recipe.engine.rawValue),
            ("MCLOUD_VERSION", recipe.series), ("PORT", String(vm.port)), ("MCLOUD_DISKS", vm.disks.joined(separator: " ")),
            ("MCLOUD_MOUNT", recipe.mountPoint), ("MCLOUD_SERVICE", recipe.service),
            ("MCLOUD_PACKAGES", (recipe.packages + (bucket == nil && vm.recoveryPoint == nil ? [] : ["awscli"]) + ageCommand(vm) + PostgreSQLArchive.packages(vm) + PostgreSQLSwitchover.packages(vm)).joined(separator: " ")),
            ("MCLOUD_DUMP_EXTENSION", recipe.dumpExtension),
        ]
        if let repository = recipe.repository {
            pairs += [("MCLOUD_APT_SOURCE", stagedSourcesPath(repository)), ("MCLOUD_KEY_URL", repository.keyURL), ("MCLOUD_KEY_PATH", repository.keyPath)]
        }
        if let backup = vm.backup {
            pairs += [("MCLOUD_BACKUP_SCHEDULE", backup.schedule), ("MCLOUD_RETENTION_DAYS", String(backup.retentionDays))]
        }
        if let bucket {
            pairs += [("MCLOUD_BACKUP_BUCKET", bucket.name), ("AWS_DEFAULT_REGION", bucket.region)]
            if let endpoint = bucket.endpoint { pairs.append(("MCLOUD_BACKUP_ENDPOINT", endpoint)) }
            if bucket.writeOnly { pairs.append(("MCLOUD_BACKUP_WRITE_ONLY", "1")) }
            if vm.archive == nil, let recipient = vm.dumpRecipient { pairs.append(("MCLOUD_BACKUP_RECIPIENT", recipient.encoded)) }
        }
        if vm.access != nil, !vm.recipe.secure.isEmpty { pairs.append(("MCLOUD_ACCESS", "1")) }
        pairs += vm.access?.replication?.settings ?? []
        if let point = vm.recoveryPoint {
            pairs += [("MCLOUD_RESTORE_BUCKET", point.bucket.name), ("MCLOUD_RESTORE_OBJECT", point.object), ("MCLOUD_RESTORE_REGION", point.bucket.region)]
            if let endpoint = point.bucket.endpoint { pairs.append(("MCLOUD_RESTORE_ENDPOINT", endpoint)) }
        }
        pairs += PostgreSQLArchive.settings(vm)
        pairs += PostgreSQLSwitchover.settings(vm)
        pairs += BinaryLogArchive.settings(vm)
        pairs += ReplicationReport.settings(vm)
        return "# Written by mcloud: this database server's settings. The bucket's keys, if any, are in \(secretsPath) (root only).\n"
            + assignments(pairs)
    }

    /// Debian's and Ubuntu's `age`, for a server that encrypts its dumps or decrypts its recovery point.
    static func ageCommand(_ vm: DatabaseVM) -> [String] {
        (vm.archive == nil && vm.dumpRecipient != nil) || vm.recoveryPoint?.identity != nil ? ["age"] : []
    }

    static func engine(_ recipe: Recipe) -> String {
        func step(_ name: String, _ lines: [String]) -> String {
            "\(name)() {\n\((lines.isEmpty ? [":"] : lines).joined(separator: "\n"))\n}\n"
        }
        func noLog(_ name: String) -> [String] { [#"echo "mcloud-engine \#(name): \#(recipe) ships no change log" >&2"#, "exit 1"] }
        func switchover(_ name: String, _ lines: [String]?) -> String {
            step(name, lines.flatMap { $0.isEmpty ? nil : $0 } ?? [#"echo "mcloud-engine \#(name): \#(recipe) cannot switch over" >&2"#, "exit 1"])
        }
        return """
            #!/bin/bash
            # Written by mcloud: the engine catalog's steps for \(recipe.engine.title) \(recipe.series) on \(recipe.family.rawValue).
            # mcloud-engine \(steps.joined(separator: "|")); dump writes $OUT, restore reads $IN.
            set -euo pipefail
            # demote and repoint follow the primary their caller names (MCLOUD_PRIMARY_*), not the one the settings name.
            caller=$(export -p | grep -E '^declare -x MCLOUD_PRIMARY_(HOST|PORT|ADDRESS)=' || true)
            # shellcheck source=/dev/null
            . \(settingsPath)
            if [ "${1:-}" = demote ] || [ "${1:-}" = repoint ]; then
              unset MCLOUD_PRIMARY_HOST MCLOUD_PRIMARY_PORT MCLOUD_PRIMARY_ADDRESS
              eval "$caller"
            fi

            """
            + step("prepare", recipe.prepare) + step("configure", recipe.configure) + step("secure", recipe.secure)
            + step("follow", recipe.replication?.follow ?? [#"echo "mcloud: standbys of \#(recipe) do not replicate" >&2"#, "exit 1"])
            + step("replicas", recipe.replication?.report ?? [])
            + switchover("demote", recipe.replication?.demote) + switchover("promote", recipe.replication?.promote)
            + switchover("repoint", recipe.replication?.repoint)
            + step("ready", [#"(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null"#, recipe.ready])
            + step("dump", [#": "${OUT:?the file to write}""#, recipe.dump]) + step("restore", [#": "${IN:?the dump to load}""#, recipe.restore])
            + step("close-log", recipe.logArchive?.close ?? noLog("close-log")) + step("log-position", recipe.logArchive?.position ?? noLog("log-position"))
            + step("replay-log", recipe.logArchive?.replay ?? noLog("replay-log"))
            + """
            case "${1:-}" in
              \(steps.joined(separator: " | "))) "$1" ;;
              *) echo "usage: mcloud-engine \(steps.joined(separator: "|"))" >&2; exit 2 ;;
            esac

            """
    }

    static let setup = #"""
        #!/bin/bash
        # Written by mcloud: puts the data disk in place, installs the engine, starts it on $PORT, schedules the backups.
        set -euo pipefail
        # shellcheck source=/dev/null
        . /etc/mcloud/database.conf
        export DEBIAN_FRONTEND=noninteractive PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
        # The volume may be attached after the VM boots: wait for one of its names to be a blank or mcloud-data disk.
        disk=""
        for _ in $(seq 900); do
          for candidate in $MCLOUD_DISKS; do
            [ -b "$candidate" ] || continue
            case "$(blkid -o value -s LABEL "$candidate" || true):$(blkid -o value -s TYPE "$candidate" || true)" in
              mcloud-data:* | :) disk=$candidate; break 2 ;;
            esac
          done
          sleep 1
        done
        [ -n "$disk" ] || { echo "mcloud: none of $MCLOUD_DISKS became a blank or mcloud-data disk in 900 s" >&2; exit 1; }
        [ -n "$(blkid -o value -s TYPE "$disk" || true)" ] || mkfs.ext4 -q -L mcloud-data "$disk"
        mkdir -p "$MCLOUD_MOUNT"
        grep -q '^LABEL=mcloud-data ' /etc/fstab || echo "LABEL=mcloud-data $MCLOUD_MOUNT ext4 defaults,nofail 0 2" >>/etc/fstab
        mountpoint -q "$MCLOUD_MOUNT" || mount "$disk" "$MCLOUD_MOUNT"
        mcloud-engine prepare
        aptget() { apt-get -q -y -o Acquire::Retries=5 -o DPkg::Lock::Timeout=600 "$@"; }
        if [ -n "${MCLOUD_KEY_URL:-}" ]; then
          command -v curl >/dev/null || { aptget update; aptget install curl ca-certificates; }
          install -d -m 755 /etc/apt/keyrings
          curl -fsSL --retry 5 -o "$MCLOUD_KEY_PATH" "$MCLOUD_KEY_URL"
          chmod 644 "$MCLOUD_KEY_PATH"
          install -m 644 "$MCLOUD_APT_SOURCE" /etc/apt/sources.list.d/
        fi
        read -ra packages <<<"$MCLOUD_PACKAGES"
        aptget update
        aptget install "${packages[@]}"
        mcloud-engine configure
        for _ in $(seq 300); do mcloud-engine ready 2>/dev/null && break; sleep 1; done
        mcloud-engine ready
        # A failover's or a drill's data first: no backup may run before it is in, or one would overwrite the leg's newest.
        if [ -n "${MCLOUD_RESTORE_OBJECT:-}" ] && [ ! -e /var/lib/mcloud/restored ]; then
          mcloud-restore --recovery-point
          mkdir -p /var/lib/mcloud && touch /var/lib/mcloud/restored
        fi
        # The clients' users after the restore, whose dump may bring back older ones; then only TLS reaches the engine.
        # A standby takes its data and users from its primary instead.
        if [ -n "${MCLOUD_STANDBY_NAME:-}" ]; then
          mcloud-engine follow
          for _ in $(seq 300); do mcloud-engine ready 2>/dev/null && break; sleep 1; done
          mcloud-engine ready
        elif [ -n "${MCLOUD_ACCESS:-}" ]; then
          mcloud-engine secure
          for _ in $(seq 300); do mcloud-engine ready 2>/dev/null && break; sleep 1; done
          mcloud-engine ready
        fi
        # The archive once the users are in: its first full backup holds them.
        if [ -n "${MCLOUD_ARCHIVE:-}" ]; then mcloud-archive setup; fi
        # Then switchover orders, which come through the archive's bucket.
        if [ -e \#(PostgreSQLSwitchover.timerUnit) ]; then systemctl daemon-reload && systemctl enable --now mcloud-switchover.timer; fi
        # MariaDB's binary log into the leg, once the restored data and the users are in.
        if [ -e \#(BinaryLogArchive.timerUnit) ]; then systemctl daemon-reload && systemctl enable --now mcloud-binlog.timer; fi
        # A standby dumps nothing; one that keeps the archive's keys takes its full backups once promoted.
        if [ -n "${MCLOUD_BACKUP_SCHEDULE:-}" ] && { [ -z "${MCLOUD_STANDBY_NAME:-}" ] || [ -n "${MCLOUD_ARCHIVE:-}" ]; }; then
          echo "$MCLOUD_BACKUP_SCHEDULE root /usr/local/sbin/mcloud-backup >>/var/log/mcloud-backup.log 2>&1" >/etc/cron.d/mcloud-backup
        fi
        if [ -n "${MCLOUD_STANDBYS:-}" ] && [ -n "${MCLOUD_BACKUP_BUCKET:-}" ]; then
          echo "* * * * * root \#(ReplicationReport.script) >>/var/log/mcloud-replication.log 2>&1" >/etc/cron.d/mcloud-replication
        fi
        echo "mcloud: $MCLOUD_ENGINE $MCLOUD_VERSION answers on port $PORT, its data on $disk at $MCLOUD_MOUNT"

        """#

    /// The metadata service serves the user data, keys included, to any process on the VM that asks (IMDSv2 asks
    /// for a token, which any process can get). Policy routing by the socket's owner closes it to every user but
    /// root, so cloud-init and the backup job (root, reading an instance profile's keys) still reach it. `ip rule`
    /// rather than nftables: iproute2 is in every Debian and Ubuntu image, nftables not in every one, and a guard
    /// that first had to install a package would leave the address open while it did.
    static let metadataGuard = #"""
        #!/bin/bash
        # Written by mcloud: once cloud-init has read the user data, only root reaches the metadata service, which
        # serves that user data, its keys included, to whoever asks (docs/security.md, H2).
        set -euo pipefail
        PATH=/usr/sbin:/usr/bin:/sbin:/bin
        # Every user but root; 4294967295 is no user.
        users=1-4294967294
        while ip rule del uidrange "$users" to 169.254.169.254 prohibit 2>/dev/null; do :; done
        ip rule add uidrange "$users" to 169.254.169.254 prohibit
        # AWS's IPv6 address of the service; a VM without IPv6 has nothing to close there.
        if [ -e /proc/net/if_inet6 ]; then
          while ip -6 rule del uidrange "$users" to fd00:ec2::254 prohibit 2>/dev/null; do :; done
          ip -6 rule add uidrange "$users" to fd00:ec2::254 prohibit
        fi
        echo "mcloud: the metadata service answers root only"

        """#

    /// Runs the guard at every boot, before the network is up, as cloud-init's first run did with `--now`.
    static let metadataGuardService = """
        [Unit]
        Description=mcloud: the metadata service answers root only
        DefaultDependencies=no
        After=local-fs.target
        Before=network-pre.target
        Wants=network-pre.target

        [Service]
        Type=oneshot
        RemainAfterExit=yes
        ExecStart=\(metadataGuardScript)

        [Install]
        WantedBy=sysinit.target

        """

    static let s3Function = #"""
        s3() { aws ${MCLOUD_BACKUP_ENDPOINT:+--endpoint-url "$MCLOUD_BACKUP_ENDPOINT"} "$@"; }
        """#

    static let environment = #"""
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
        set -a
        # shellcheck source=/dev/null
        . /etc/mcloud/database.conf
        # shellcheck source=/dev/null
        if [ -r /etc/mcloud/backup.env ]; then . /etc/mcloud/backup.env; fi
        set +a
        """#

    static let backup = #"""
        #!/bin/bash
        # Written by mcloud: one consistent dump, encrypted with age to the leg's recipient and uploaded with its size and
        # SHA-256 to the DR bucket, backups older than the retention deleted, and a status object (<server>/status.json)
        # that mcloud's plan reads back. No dump leaves the server in plain text.
        set -uo pipefail
        \#(environment)
        \#(s3Function)
        # A server that archives takes full backups with pgBackRest; a dump would land in plain text beside it.
        if [ -n "${MCLOUD_ARCHIVE:-}" ]; then exec mcloud-archive backup; fi
        mkdir -p /var/backups/mcloud /var/lib/mcloud
        exec 9>/var/lib/mcloud/backup.lock
        flock -n 9 || { echo "mcloud-backup: another backup is running" >&2; exit 1; }
        stamp=$(date -u +%Y%m%dT%H%M%SZ)
        attempt=$(date -u +%Y-%m-%dT%H:%M:%SZ)
        OUT=/var/backups/mcloud/$stamp.$MCLOUD_DUMP_EXTENSION
        key=$MCLOUD_SERVER/$stamp.$MCLOUD_DUMP_EXTENSION.age
        export OUT
        error=""
        mcloud-engine dump || error="the dump failed"
        # The bucket gets ciphertext only: the plain dump is removed as soon as age has written its encrypted copy.
        if [ -z "$error" ] && [ -n "${MCLOUD_BACKUP_BUCKET:-}" ]; then
          if [ -z "${MCLOUD_BACKUP_RECIPIENT:-}" ]; then
            error="no age recipient to encrypt the dump to (MCLOUD_BACKUP_RECIPIENT); a dump is never uploaded in plain text"
          elif age -r "$MCLOUD_BACKUP_RECIPIENT" <"$OUT" >"$OUT.age"; then
            rm -f "$OUT"
            OUT=$OUT.age
          else
            rm -f "$OUT.age"
            error="encrypting the dump with age failed"
          fi
        fi
        if [ -z "$error" ]; then
          size=$(stat -c %s "$OUT")
          sum=$(sha256sum "$OUT" | cut -d ' ' -f 1)
          if [ -n "${MCLOUD_BACKUP_BUCKET:-}" ]; then
            if s3 s3 cp --only-show-errors "$OUT" "s3://$MCLOUD_BACKUP_BUCKET/$key" --metadata "sha256=$sum,size=$size"; then
              rm -f "$OUT"
            else
              error="the upload to the DR bucket failed"
            fi
          fi
        fi
        if [ -z "$error" ]; then
          printf 'last_success=%s\nlast_object=%s\nlast_size=%s\nlast_sha256=%s\n' "$attempt" "$key" "$size" "$sum" >/var/lib/mcloud/last-backup
        fi
        last_success="" last_object="" last_size="" last_sha256=""
        # shellcheck source=/dev/null
        if [ -r /var/lib/mcloud/last-backup ]; then . /var/lib/mcloud/last-backup; fi
        text() { if [ -n "$1" ]; then printf '"%s"' "$1"; else printf null; fi; }
        printf '{"server": %s, "engine": %s, "version": %s, "lastAttempt": %s, "lastSuccess": %s, "object": %s, "size": %s, "sha256": %s, "error": %s}\n' \
          "$(text "$MCLOUD_SERVER")" "$(text "$MCLOUD_ENGINE")" "$(text "$MCLOUD_VERSION")" "$(text "$attempt")" "$(text "$last_success")" \
          "$(text "$last_object")" "${last_size:-null}" "$(text "$last_sha256")" "$(text "$error")" >/var/lib/mcloud/backup-status.json
        if [ -n "${MCLOUD_BACKUP_BUCKET:-}" ]; then
          s3 s3 cp --only-show-errors --content-type application/json /var/lib/mcloud/backup-status.json \
            "s3://$MCLOUD_BACKUP_BUCKET/$MCLOUD_SERVER/status.json" || error=${error:-"writing the status object failed"}
        fi
        # Keys that may only upload cannot list or delete: the bucket's lifecycle rule expires the old backups.
        if [ -n "${MCLOUD_BACKUP_BUCKET:-}" ] && [ -z "${MCLOUD_BACKUP_WRITE_ONLY:-}" ]; then
          cutoff=$(date -u -d "$MCLOUD_RETENTION_DAYS days ago" +%Y-%m-%dT%H:%M:%S)
          if listing=$(s3 s3api list-objects-v2 --bucket "$MCLOUD_BACKUP_BUCKET" --prefix "$MCLOUD_SERVER/" --query 'Contents[].[Key, LastModified]' --output text); then
            while read -r old; do
              s3 s3api delete-object --bucket "$MCLOUD_BACKUP_BUCKET" --key "$old" >/dev/null || error=${error:-"deleting $old failed"}
            done < <(awk -v cutoff="$cutoff" -v keep="$MCLOUD_SERVER/status.json" -v current="$key" \
              '$1 != keep && $1 != current && $1 != "None" && $2 < cutoff { print $1 }' <<<"$listing")
          else
            error=${error:-"listing the DR bucket failed"}
          fi
        fi
        find /var/backups/mcloud -type f -mtime +"$MCLOUD_RETENTION_DAYS" -delete
        [ -z "$error" ] || { echo "mcloud-backup: $error" >&2; exit 1; }
        echo "mcloud-backup: $key, $size bytes, sha256 $sum"

        """#

    static let restore = #"""
        #!/bin/bash
        # Written by mcloud: mcloud-restore [FILE | s3://BUCKET/KEY] loads a backup with the engine catalog's restore step;
        # without an argument, the newest backup the DR bucket's status object names. An object's SHA-256 must match the
        # one its upload recorded; an .age dump is decrypted with the identity in MCLOUD_RESTORE_IDENTITY, by default
        # /etc/mcloud/restore.key, which only a failover's or a drill's server is given. mcloud-restore --recovery-point
        # loads the server's recovery point from its bucket with that bucket's keys, and writes <server>/restored.json
        # beside it however it ends.
        set -euo pipefail
        \#(environment)
        \#(s3Function)
        # replay_logs BUCKET DUMP_KEY LINEAGE FIRST_LOG POSITION: the logs of the dump's lineage from FIRST_LOG on, each
        # checked against its recorded SHA-256 and decrypted, replayed up to the first one the leg lacks.
        replay_logs() {
          local bucket=$1 prefix=${2%/*}/binlog/$3/ expected=$4 start=$5 work listing key name recorded count=0 logs=()
          work=$(mktemp -d /var/backups/mcloud/binlog.XXXXXX)
          listing=$(s3 s3api list-objects-v2 --bucket "$bucket" --prefix "$prefix" --query 'Contents[].Key' --output text)
          for key in $(tr '\t' '\n' <<<"$listing" | grep '\.age$' | sort); do
            name=${key##*/}
            name=${name%.age}
            [[ "$name" < "$expected" ]] && continue
            [ "$name" = "$expected" ] || break
            s3 s3 cp --only-show-errors "s3://$bucket/$key" "$work/$name.age"
            recorded=$(s3 s3api head-object --bucket "$bucket" --key "$key" --query Metadata.sha256 --output text)
            [ "$recorded" = "$(sha256sum "$work/$name.age" | cut -d ' ' -f 1)" ] || { echo "mcloud-restore: s3://$bucket/$key does not match its recorded SHA-256" >&2; exit 1; }
            age -d -i "${identity:-${MCLOUD_RESTORE_IDENTITY:-/etc/mcloud/restore.key}}" -o "$work/$name" "$work/$name.age"
            rm -f "$work/$name.age"
            logs+=("$work/$name")
            expected=$(printf '%s.%06d' "${name%.*}" $((10#${name##*.} + 1)))
          done
          if [ ${#logs[@]} -gt 0 ]; then
            LOGS="${logs[*]}" LOG_START=$start STOP_AT=${MCLOUD_RESTORE_STOP_AT:-} mcloud-engine replay-log
            count=${#logs[@]}
          fi
          rm -rf "$work"
          echo "mcloud-restore: replayed $count binary logs of lineage $3 from $4 at $start${MCLOUD_RESTORE_STOP_AT:+ up to $MCLOUD_RESTORE_STOP_AT}; the first the leg lacks: $expected"
        }
        source=${1:-}
        if [ "$source" = --recovery-point ]; then
          [ -n "${MCLOUD_RESTORE_OBJECT:-}" ] || { echo "mcloud-restore: this server was made without a recovery point" >&2; exit 2; }
          unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
          set -a
          # shellcheck source=/dev/null
          if [ -r /etc/mcloud/restore.env ]; then . /etc/mcloud/restore.env; fi
          set +a
          MCLOUD_BACKUP_ENDPOINT=${MCLOUD_RESTORE_ENDPOINT:-}
          export AWS_DEFAULT_REGION=$MCLOUD_RESTORE_REGION
          source=s3://$MCLOUD_RESTORE_BUCKET/$MCLOUD_RESTORE_OBJECT
          started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
          report() {
            local code=$? error=null
            [ "$code" -eq 0 ] || error="\"mcloud-restore exited $code\""
            printf '{"server": "%s", "object": "%s", "startedAt": "%s", "finishedAt": "%s", "error": %s}\n' \
              "$MCLOUD_SERVER" "$MCLOUD_RESTORE_OBJECT" "$started" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$error" >/var/lib/mcloud/restored.json
            s3 s3 cp --only-show-errors --content-type application/json /var/lib/mcloud/restored.json \
              "s3://$MCLOUD_RESTORE_BUCKET/$MCLOUD_SERVER/restored.json" || echo "mcloud-restore: writing the report failed" >&2
            exit "$code"
          }
          mkdir -p /var/lib/mcloud
          trap report EXIT
          if [ -n "${MCLOUD_RESTORE_ARCHIVE:-}" ]; then
            mcloud-archive restore
            exit 0
          fi
        fi
        if [ -z "$source" ]; then
          [ -n "${MCLOUD_BACKUP_BUCKET:-}" ] || { echo "mcloud-restore: this server has no DR bucket; name a dump file" >&2; exit 2; }
          status=$(s3 s3 cp --only-show-errors "s3://$MCLOUD_BACKUP_BUCKET/$MCLOUD_SERVER/status.json" -)
          object=$(sed -n 's/.*"object": *"\([^"]*\)".*/\1/p' <<<"$status")
          [ -n "$object" ] || { echo "mcloud-restore: the status object names no backup" >&2; exit 1; }
          source=s3://$MCLOUD_BACKUP_BUCKET/$object
        fi
        case "$source" in
          s3://*)
            location=${source#s3://}
            mkdir -p /var/backups/mcloud
            IN=/var/backups/mcloud/restore.$MCLOUD_DUMP_EXTENSION
            case "$source" in *.age) IN=$IN.age ;; esac
            s3 s3 cp --only-show-errors "$source" "$IN"
            recorded=$(s3 s3api head-object --bucket "${location%%/*}" --key "${location#*/}" --query Metadata.sha256 --output text)
            actual=$(sha256sum "$IN" | cut -d ' ' -f 1)
            [ "$recorded" = "$actual" ] || { echo "mcloud-restore: $source has SHA-256 $actual; its upload recorded $recorded" >&2; exit 1; }
            ;;
          *) IN=$source ;;
        esac
        # An encrypted dump; an older plain one (no .age) loads as it is.
        case "$IN" in
          *.age)
            identity=${MCLOUD_RESTORE_IDENTITY:-/etc/mcloud/restore.key}
            [ -r "$identity" ] || { echo "mcloud-restore: $source is encrypted with age and this server has no identity to decrypt it ($identity); a failover's or a drill's server is given one" >&2; exit 1; }
            mkdir -p /var/backups/mcloud
            plain=/var/backups/mcloud/restore.plain.$MCLOUD_DUMP_EXTENSION
            if ! failure=$(age -d -i "$identity" -o "$plain" "$IN" 2>&1); then
              rm -f "$plain"
              echo "mcloud-restore: $source cannot be decrypted with the identity in $identity, which is not the one of this DR leg: $failure" >&2
              exit 1
            fi
            IN=$plain
            ;;
        esac
        export IN
        mcloud-engine restore
        # The change logs the dump's server shipped after it, from where the dump stands (BinaryLogArchive).
        if [ -n "${location:-}" ] && position=$(mcloud-engine log-position 2>/dev/null) && [ -n "$position" ]; then
          read -r lineage first start <<<"$position"
          replay_logs "${location%%/*}" "${location#*/}" "$lineage" "$first" "$start"
        fi
        # The decrypted copy goes once loaded: the engine holds the data now.
        [ -z "${plain:-}" ] || rm -f "$plain"
        echo "mcloud-restore: restored $source"

        """#
}
