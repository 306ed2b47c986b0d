import MCloudCore
import MCloudSecrets

/// Redis replicas (docs/databases.md, "Standbys"): each standby is a replica of the primary over TLS (`replicaof`,
/// `tls-replication yes`), logged in as an ACL user that may only replicate. Redis replicates asynchronously only, so
/// what a replica has not received when the primary is lost is lost: no RPO 0, even inside the cloud.
enum RedisReplication {
    /// The standby's login, `masteruser` and `masterauth`, in Redis's configuration syntax (root-only until installed).
    static let loginPath = "/etc/mcloud/access/redis-replica.conf"

    static func files(_ replication: ServerReplication) -> [DatabaseUserData.File] {
        guard case .standby = replication.role else { return [] }
        let content = "masteruser \(ReplicationCredential.user)\nmasterauth \(replication.password ?? "")\n"
        return [DatabaseUserData.File(path: loginPath, permissions: "0600", content: content)]
    }

    /// The primary's ACL line: the replication user, with its password's hash, allowed only what a replica sends.
    static func aclLines(_ replication: ServerReplication?) -> [String] {
        guard case .primary = replication?.role, let verifier = replication?.verifier else { return [] }
        return ["user \(ReplicationCredential.user) on \(verifier) resetkeys resetchannels -@all +psync +replconf +ping"]
    }

    /// The standby's `follow`: `secure` as on the primary (TLS, the clients' ACL, the administrator), then the
    /// replica's settings included after it, and the restart that makes it connect. Redis retries the primary by
    /// itself, so nothing waits here. The primary's certificate is verified against the CA; Redis does not match its
    /// name.
    static let follow: [String] = RedisRecipes.secure.dropLast() + [
        #"""
        {
          echo "replicaof ${MCLOUD_PRIMARY_ADDRESS:-$MCLOUD_PRIMARY_HOST} $MCLOUD_PRIMARY_PORT"
          echo "tls-replication yes"
          cat \#(loginPath)
        } >/etc/redis/mcloud/replica.conf
        chown redis:redis /etc/redis/mcloud/replica.conf
        chmod 600 /etc/redis/mcloud/replica.conf
        grep -qx 'include /etc/redis/mcloud/replica.conf' /etc/redis/redis.conf || echo 'include /etc/redis/mcloud/replica.conf' >>/etc/redis/redis.conf
        """#,
        "systemctl restart redis-server",
    ]

    /// The primary's `INFO replication`: a replica has no name there, so its address and port name it; `lag` is the
    /// seconds since its last acknowledgement (a replica acknowledges every second), the bytes what it has not got.
    static let report: [String] = [
        RedisRecipes.client,
        #"""
        info=$(cli INFO replication | tr -d '\r')
        offset=$(sed -n 's/^master_repl_offset://p' <<<"$info")
        sed -n 's/^slave[0-9]*://p' <<<"$info" | while IFS=, read -r address replica_port state replica_offset lag; do
          printf '%s:%s\t%s\tasync\t%s\t%s\n' "${address#ip=}" "${replica_port#port=}" "${state#state=}" "${lag#lag=}" "$((${offset:-0} - ${replica_offset#offset=}))"
        done
        """#,
    ]
}
