/// Redis: the distribution's redis-server where its series matches (Debian 12's and Ubuntu 24.04's 7.0, Ubuntu
/// 22.04's 6.0), else packages.redis.io (https://github.com/redis/redis-debian README: key, `<codename> main`, and
/// the `Pin: version 6:7.4.*` it suggests for one series). Redis 7.4 and later are RSALv2/SSPLv1-licensed.
/// Data in /var/lib/redis, which the unit's ProtectSystem=strict leaves writable.
enum RedisRecipes {
    /// The fingerprint is not in Redis's documentation; it is the one third parties pin for packages.redis.io
    /// (voxpupuli/puppet-redis `apt_key_id`, Canonical's charmed-redis-rock), so a changed key fails the install.
    static func repository(_ series: String, _ family: ImageFamily) -> VendorRepository {
        VendorRepository(
            name: "redis", vendor: "Redis Ltd.", keyURL: "https://packages.redis.io/gpg", fingerprint: "54318FA4052D1E61A6B6F7BB5F4349D6BF53AA0C",
            uri: "https://packages.redis.io/deb", suite: family.codename, components: ["main"],
            pin: .init(packages: "redis redis-server redis-sentinel redis-tools", rule: "version 6:\(series).*"),
            documentation: [
                "https://github.com/redis/redis-debian", "https://redis.io/docs/latest/operate/oss_and_stack/install/install-redis/install-redis-on-linux/",
            ]
        )
    }

    /// The VM's own administrator for `ready` and `dump` once `secure` has closed plain text and the `default` user:
    /// over the Unix socket, with a password made on the VM (root-only), which leaves it for nothing else.
    static let adminPasswordPath = "/etc/mcloud/redis-admin"
    static let socket = "/run/redis/redis-server.sock"
    static let client = #"""
        cli() {
          if [ -s \#(adminPasswordPath) ]; then
            REDISCLI_AUTH=$(cat \#(adminPasswordPath)) redis-cli -s \#(socket) --user mcloud-admin "$@"
          else
            redis-cli -p "$PORT" "$@"
          fi
        }
        """#

    /// TLS only on `$PORT` (`port 0`) with the server's certificate, the clients' ACL file with the VM's administrator
    /// added, and the Unix socket for that administrator; an `include` at the end of redis.conf overrides the port.
    static let secure = [
        #"""
        install -d -o redis -g redis -m 750 /etc/redis/mcloud
        install -o redis -g redis -m 600 \#(AccessFiles.keyPath) /etc/redis/mcloud/server.key
        install -o redis -g redis -m 644 \#(AccessFiles.certificatePath) /etc/redis/mcloud/server.crt
        install -o redis -g redis -m 644 \#(AccessFiles.authorityPath) /etc/redis/mcloud/ca.crt
        [ -s \#(adminPasswordPath) ] || (umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >\#(adminPasswordPath))
        admin=$(tr -d '\n' <\#(adminPasswordPath) | sha256sum | cut -d ' ' -f 1)
        { cat \#(AccessFiles.redisUsersPath); echo "user mcloud-admin on #$admin ~* &* +@all"; } >/etc/redis/mcloud/users.acl
        chown redis:redis /etc/redis/mcloud/users.acl
        chmod 600 /etc/redis/mcloud/users.acl
        cat >/etc/redis/mcloud/tls.conf <<EOF
        port 0
        tls-port $PORT
        tls-cert-file /etc/redis/mcloud/server.crt
        tls-key-file /etc/redis/mcloud/server.key
        tls-ca-cert-file /etc/redis/mcloud/ca.crt
        tls-auth-clients no
        aclfile /etc/redis/mcloud/users.acl
        unixsocket \#(socket)
        unixsocketperm 700
        EOF
        chown redis:redis /etc/redis/mcloud/tls.conf
        grep -qx 'include /etc/redis/mcloud/tls.conf' /etc/redis/redis.conf || echo 'include /etc/redis/mcloud/tls.conf' >>/etc/redis/redis.conf
        """#,
        "systemctl restart redis-server",
    ]

    static let offered: [ImageFamily: [(series: String, fromDistribution: Bool)]] = [
        .debian12: [("7.0", true), ("7.2", false), ("7.4", false)],
        .ubuntu2204: [("6.0", true), ("7.0", false), ("7.2", false), ("7.4", false)],
        .ubuntu2404: [("7.0", true), ("7.2", false), ("7.4", false)],
    ]

    static let all: [Recipe] = ImageFamily.allCases.flatMap { family in
        (offered[family] ?? []).map { series, fromDistribution in
            Recipe(
                engine: .redis, series: series, family: family, source: fromDistribution ? .distribution : .vendor(repository(series, family)),
                packages: ["redis-server", "redis-tools"], service: "redis-server", mountPoint: "/var/lib/redis", dataDirectory: "/var/lib/redis",
                configure: [
                    // Protected mode stays on: without a password Redis refuses clients from other hosts.
                    #"sed -i -e "s/^port .*/port $PORT/" -e "s/^bind .*/bind 0.0.0.0 -::/" /etc/redis/redis.conf"#,
                    "systemctl enable redis-server", "systemctl restart redis-server",
                ],
                secure: secure,
                ready: client + "\n" + #"[ "$(cli ping)" = PONG ]"#,
                // The RDB snapshot the server sends a replica: one point in time.
                dump: client + "\n" + #"cli --rdb "$OUT" >/dev/null"#,
                // Stopping saves the running data set, so the file goes in place after the stop.
                restore: """
                    systemctl stop redis-server
                    install -o redis -g redis -m 660 "$IN" /var/lib/redis/dump.rdb
                    systemctl start redis-server
                    """,
                dumpExtension: "rdb", proof: fromDistribution && family == .debian12 ? .bed : .checks,
                replication: Recipe.Replication(mode: .asynchronous, follow: RedisReplication.follow, report: RedisReplication.report)
            )
        }
    }
}
