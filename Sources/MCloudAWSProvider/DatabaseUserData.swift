import MCloudAWS
import MCloudCore
import MCloudProvider

/// The cloud-init script of a database VM: it installs the engine and a backup job. The job reads the backup
/// settings from the instance's own tags (EC2 DescribeTags; metadata tags cannot carry mcloud's `/` keys), which a
/// BackupSchedule sets, and uploads with the instance profile's role. Only a DR bucket outside AWS (an S3-compatible
/// endpoint) needs keys: those go into a root-only `/etc/mcloud/backup.env` written by this script, and nowhere else.
enum DatabaseUserData {
    /// `tag KEY`: the value of one of the instance's tags, empty when it has none.
    private static let tagFunction = """
        token=$(curl -fsS -X PUT -H "X-aws-ec2-metadata-token-ttl-seconds: 60" http://169.254.169.254/latest/api/token)
        id=$(curl -fsS -H "X-aws-ec2-metadata-token: $token" http://169.254.169.254/latest/meta-data/instance-id)
        tag() { aws ec2 describe-tags --filters "Name=resource-id,Values=$id" "Name=key,Values=$1" --query 'Tags[0].Value' --output text | grep -v '^None$' || true; }
        """

    static func script(_ body: JSONValue, upload: BackupUpload? = nil) -> String {
        let engine = ResourceBody(body).string("engine") ?? "postgresql"
        let version = ResourceBody(body).string("version") ?? ""
        let package = switch engine {
        case "postgresql": "postgresql-\(version)"
        case "mysql": "mysql-server"
        case "redis": "redis-server"
        default: engine
        }
        let dump = switch engine {
        case "postgresql": "sudo -u postgres pg_dumpall | gzip"
        case "mysql": "mysqldump --all-databases | gzip"
        case "redis": "redis-cli --rdb /dev/stdout | gzip"
        default: "tar -cz /var/lib/\(engine)"
        }
        return """
            #!/bin/bash
            # mcloud database server \(body.value(at: ["metadata", "address"])?.stringValue ?? "")
            set -euo pipefail
            export DEBIAN_FRONTEND=noninteractive
            apt-get update -q
            apt-get install -y -q \(package) awscli curl
            mkdir -p /var/lib/\(engine)-data
            cat >/usr/local/sbin/mcloud-backup <<'SCRIPT'
            #!/bin/bash
            # Runs when the schedule in the instance's tags says so; uploads with the instance role's credentials.
            set -euo pipefail
            \(tagFunction)
            bucket=$(tag \(AWSTag.backupBucket))
            [ -n "$bucket" ] || exit 0
            \(upload == nil ? "\(dump) | aws s3 cp - \"s3://$bucket/$(hostname)/$(date -u +%Y%m%dT%H%M%SZ).gz\"" : uploadWithKeys(dump))
            SCRIPT
            chmod 755 /usr/local/sbin/mcloud-backup
            \(upload.map(environmentFile) ?? "")
            cat >/usr/local/sbin/mcloud-backup-schedule <<'SCRIPT'
            #!/bin/bash
            # Keeps /etc/cron.d/mcloud-backup in step with the schedule tag a BackupSchedule sets.
            set -euo pipefail
            \(tagFunction)
            schedule=$(tag \(AWSTag.backupSchedule) | base64 -d || true)
            if [ -n "$schedule" ]; then echo "$schedule root /usr/local/sbin/mcloud-backup" >/etc/cron.d/mcloud-backup; else rm -f /etc/cron.d/mcloud-backup; fi
            SCRIPT
            chmod 755 /usr/local/sbin/mcloud-backup-schedule
            echo "*/5 * * * * root /usr/local/sbin/mcloud-backup-schedule" >/etc/cron.d/mcloud-backup-schedule

            """
    }

    /// The keys' file, written before the job can run: root-only from its creation.
    private static func environmentFile(_ upload: BackupUpload) -> String {
        "install -d -m 700 /etc/mcloud\n(umask 077; cat >/etc/mcloud/backup.env <<'ENV'\n\(upload.environmentFile)\nENV\n)"
    }

    /// The upload with the file's keys, in a subshell: the job's own EC2 calls keep the instance role.
    private static func uploadWithKeys(_ dump: String) -> String {
        #"\#(dump) | (set -a; . /etc/mcloud/backup.env; set +a; aws s3 cp - "s3://$MCLOUD_BACKUP_BUCKET/$(hostname)/$(date -u +%Y%m%dT%H%M%SZ).gz" --endpoint-url "$MCLOUD_BACKUP_ENDPOINT")"#
    }
}
