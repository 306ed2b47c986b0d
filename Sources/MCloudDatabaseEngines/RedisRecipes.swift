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
                ready: #"[ "$(redis-cli -p "$PORT" ping)" = PONG ]"#,
                // The RDB snapshot the server sends a replica: one point in time.
                dump: #"redis-cli -p "$PORT" --rdb "$OUT" >/dev/null"#,
                // Stopping saves the running data set, so the file goes in place after the stop.
                restore: """
                    systemctl stop redis-server
                    install -o redis -g redis -m 660 "$IN" /var/lib/redis/dump.rdb
                    systemctl start redis-server
                    """,
                dumpExtension: "rdb", proof: fromDistribution && family == .debian12 ? .bed : .checks
            )
        }
    }
}
