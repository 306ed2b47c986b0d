import MCloudAWS
import MCloudCore

/// The cloud-init user data of a database server: installs the engine from Debian's packages, puts its data on
/// the attached volume (the first disk that is neither the root disk nor mounted), listens on the spec's port, and
/// installs a cron job that reads the backup settings a BackupSchedule writes into the server's metadata
/// (`backup-schedule`, `backup-retention-days`, `backup-copy-to`) from the metadata service every 5 minutes.
/// With a DR bucket (`BackupUpload`), each dump is also uploaded there with awscli, using keys from a root-only
/// `/etc/mcloud/backup.env`. Those keys are the only secret in user data, which the VM's metadata service and the
/// cloud's administrators (Nova's extended server attributes) can read: they should be keys for the bucket alone.
enum CloudInit {
    struct Recipe {
        var packages: [String]
        var service: String
        var dataDirectory: String
        /// Shell lines that set the port; `$PORT` is the port.
        var configure: String
        /// A shell command writing one backup to the file named by `$OUT`.
        var dump: String
    }

    static func recipe(engine: String, version: String) -> Recipe? {
        switch engine {
        case "postgresql":
            return Recipe(
                packages: ["postgresql-\(version)"], service: "postgresql", dataDirectory: "/var/lib/postgresql",
                configure: "sed -i \"s/^#\\?port = .*/port = $PORT/\" /etc/postgresql/\(version)/main/postgresql.conf",
                dump: "su postgres -c 'pg_dumpall' | gzip > \"$OUT\""
            )
        case "mysql", "mariadb":
            return Recipe(
                packages: ["mariadb-server"], service: "mariadb", dataDirectory: "/var/lib/mysql",
                configure: "printf '[mysqld]\\nport = %s\\n' \"$PORT\" > /etc/mysql/mariadb.conf.d/60-mcloud.cnf",
                dump: "mysqldump --all-databases --single-transaction | gzip > \"$OUT\""
            )
        case "redis":
            return Recipe(
                packages: ["redis-server"], service: "redis-server", dataDirectory: "/var/lib/redis",
                configure: "sed -i \"s/^port .*/port $PORT/\" /etc/redis/redis.conf",
                dump: "redis-cli -p \"$PORT\" --rdb \"$OUT\""
            )
        default:
            return nil
        }
    }

    static func userData(address: String, engine: String, version: String, port: Int, recipe: Recipe, upload: BackupUpload? = nil) -> String {
        let server = address.split(separator: ".", maxSplits: 3).dropFirst(3).first.map(String.init) ?? address
        let uploadLine = upload.map { "\n      \($0.command(server: server))" } ?? ""
        let sourceLine = upload == nil ? "" : "\n      set -a; . /etc/mcloud/backup.env; set +a"
        let environmentFile = upload.map { upload in
            """

              - path: /etc/mcloud/backup.env
                owner: root:root
                permissions: "0600"
                content: |
            \(upload.environmentFile.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
            """
        } ?? ""
        return """
        #cloud-config
        # Written by mcloud for \(address): \(engine) \(version) on port \(port).
        package_update: true
        packages: [\((recipe.packages + ["curl", "jq"] + (upload == nil ? [] : ["awscli"])).joined(separator: ", "))]
        write_files:
          - path: /usr/local/sbin/mcloud-db-setup
            permissions: "0755"
            content: |
              #!/bin/sh
              set -eu
              PORT=\(port)
              ROOT=$(lsblk -no PKNAME "$(findmnt -no SOURCE /)")
              DISK=$(lsblk -dnpo NAME,TYPE | awk -v root="/dev/$ROOT" '$2 == "disk" && $1 != root { print $1; exit }')
              systemctl stop \(recipe.service)
              if [ -n "$DISK" ]; then
                blkid "$DISK" >/dev/null || mkfs.ext4 -q -L mcloud-data "$DISK"
                mkdir -p /mnt/mcloud-data
                mount "$DISK" /mnt/mcloud-data
                cp -a \(recipe.dataDirectory)/. /mnt/mcloud-data/
                umount /mnt/mcloud-data
                echo "LABEL=mcloud-data \(recipe.dataDirectory) ext4 defaults,nofail 0 2" >> /etc/fstab
                mount \(recipe.dataDirectory)
              fi
              \(recipe.configure)
              systemctl enable --now \(recipe.service)
          - path: /usr/local/sbin/mcloud-backup
            permissions: "0755"
            content: |
              #!/bin/sh
              set -eu\(sourceLine)
              PORT=\(port)
              DAYS=$(curl -sf http://169.254.169.254/openstack/latest/meta_data.json | jq -r '.meta["backup-retention-days"] // "7"')
              mkdir -p /var/backups/mcloud
              OUT=/var/backups/mcloud/$(date -u +%Y%m%dT%H%M%SZ).dump
              \(recipe.dump)\(uploadLine)
              find /var/backups/mcloud -type f -mtime +"$DAYS" -delete
          - path: /usr/local/sbin/mcloud-backup-schedule
            permissions: "0755"
            content: |
              #!/bin/sh
              # Turns the server's backup-schedule metadata into a cron entry; no schedule, no entry.
              set -eu
              SCHEDULE=$(curl -sf http://169.254.169.254/openstack/latest/meta_data.json | jq -r '.meta["backup-schedule"] // empty')
              if [ -n "$SCHEDULE" ]; then
                echo "$SCHEDULE root /usr/local/sbin/mcloud-backup" > /etc/cron.d/mcloud-backup
              else
                rm -f /etc/cron.d/mcloud-backup
              fi
          - path: /etc/cron.d/mcloud-backup-schedule
            content: |
              */5 * * * * root /usr/local/sbin/mcloud-backup-schedule\(environmentFile)
        runcmd:
          - [/usr/local/sbin/mcloud-db-setup]
          - [/usr/local/sbin/mcloud-backup-schedule]

        """
    }
}
