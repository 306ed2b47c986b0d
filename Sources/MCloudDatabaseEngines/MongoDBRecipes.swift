/// MongoDB Community from repo.mongodb.org (https://www.mongodb.com/docs/manual/tutorial/install-mongodb-on-debian/
/// and .../install-mongodb-on-ubuntu/: `server-<series>.asc`, `<codename>/mongodb-org/<series>`, `main` on Debian and
/// `multiverse` on Ubuntu; the fingerprints are the ones the Docker official image pins). 7.0 runs on Debian 12 and
/// Ubuntu 22.04, 8.0 on all three. No distribution packages MongoDB (SSPL). It runs as a one-member replica set so
/// that `mongodump --oplog` takes one point in time.
enum MongoDBRecipes {
    static let fingerprints = ["7.0": "E58830201F7DD82CD808AA84160D26BB1785BA38", "8.0": "4B0752C1BCA238C0B4EE14DC41DE058A4E7DCA05"]
    static let offered: [ImageFamily: [String]] = [.debian12: ["7.0", "8.0"], .ubuntu2204: ["7.0", "8.0"], .ubuntu2404: ["8.0"]]

    static func repository(_ series: String, _ family: ImageFamily) -> VendorRepository {
        VendorRepository(
            name: "mongodb-org-\(series)", vendor: "MongoDB, Inc.", keyURL: "https://pgp.mongodb.com/server-\(series).asc", fingerprint: fingerprints[series],
            uri: "https://repo.mongodb.org/apt/\(family.distribution.rawValue)", suite: "\(family.codename)/mongodb-org/\(series)",
            components: [family.distribution == .debian ? "main" : "multiverse"],
            documentation: [
                "https://www.mongodb.com/docs/v\(series)/tutorial/install-mongodb-on-debian/",
                "https://www.mongodb.com/docs/v\(series)/tutorial/install-mongodb-on-ubuntu/",
            ]
        )
    }

    static let all: [Recipe] = ImageFamily.allCases.flatMap { family in
        (offered[family] ?? []).map { series in
            Recipe(
                engine: .mongodb, series: series, family: family, source: .vendor(repository(series, family)), packages: ["mongodb-org"], service: "mongod",
                mountPoint: "/var/lib/mongodb", dataDirectory: "/var/lib/mongodb",
                configure: [
                    "chown -R mongodb:mongodb /var/lib/mongodb",
                    """
                    cat >/etc/mongod.conf <<EOF
                    storage:
                      dbPath: /var/lib/mongodb
                    systemLog:
                      destination: file
                      logAppend: true
                      path: /var/log/mongodb/mongod.log
                    net:
                      port: $PORT
                      bindIp: 127.0.0.1
                    processManagement:
                      timeZoneInfo: /usr/share/zoneinfo
                    replication:
                      replSetName: mcloud
                    EOF
                    """,
                    "systemctl enable mongod", "systemctl restart mongod",
                    #"for _ in $(seq 120); do mongosh --quiet --port "$PORT" --eval 'db.runCommand({ping: 1}).ok' >/dev/null 2>&1 && break; sleep 1; done"#,
                    #"mongosh --quiet --port "$PORT" --eval "try { rs.status() } catch (e) { rs.initiate({_id: 'mcloud', members: [{_id: 0, host: '127.0.0.1:$PORT'}]}) }" >/dev/null"#,
                ],
                ready: #"[ "$(mongosh --quiet --port "$PORT" --eval 'db.hello().isWritablePrimary')" = true ]"#,
                dump: #"mongodump --quiet --port "$PORT" --oplog --gzip --archive="$OUT""#,
                restore: #"mongorestore --quiet --port "$PORT" --oplogReplay --drop --gzip --archive="$IN""#,
                dumpExtension: "archive.gz", proof: .checks
            )
        }
    }
}
