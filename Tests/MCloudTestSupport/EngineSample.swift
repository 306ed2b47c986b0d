/// Known rows or keys for each engine Debian 12 ships, as shell run inside a database VM: how to write them and
/// how to print a checksum of them. The bed tests and `mcloud-bench database-vms` compare the checksum of the
/// instance that was backed up with the one that restored the backup.
public struct EngineSample: Sendable, CustomStringConvertible {
    public var engine: String
    public var version: String
    /// Not the engine's default, so that the test shows the spec's port is used.
    public var port: Int
    public var write: String
    public var checksum: String

    public var description: String { "\(engine) \(version)" }

    public static let debian12: [EngineSample] = [
        EngineSample(
            engine: "postgresql", version: "15", port: 5433,
            write: #"runuser -u postgres -- psql -X -q -p 5433 -v ON_ERROR_STOP=1 -c "CREATE TABLE accounts (id int PRIMARY KEY, owner text, balance numeric); INSERT INTO accounts SELECT g, md5(g::text), g * 1.5 FROM generate_series(1, 1000) g""#,
            checksum: #"runuser -u postgres -- psql -X -Atq -p 5433 -c "SELECT count(*) || ':' || md5(string_agg(id || '/' || owner || '/' || balance, ',' ORDER BY id)) FROM accounts""#
        ),
        EngineSample(
            engine: "mysql", version: "10.11", port: 3307,
            write: #"mariadb -e "CREATE DATABASE shop; USE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, item TEXT) ENGINE=InnoDB; INSERT INTO shop.orders SELECT seq, MD5(seq) FROM seq_1_to_1000""#,
            checksum: #"mariadb -N -e "SET SESSION group_concat_max_len = 1000000; SELECT CONCAT(COUNT(*), ':', MD5(GROUP_CONCAT(id, '/', item ORDER BY id))) FROM shop.orders""#
        ),
        EngineSample(
            engine: "redis", version: "7.0", port: 6380,
            write: #"for i in $(seq 1 1000); do echo "SET key:$i value-$i"; done | redis-cli -p 6380 >/dev/null"#,
            checksum: #"echo "$(redis-cli -p 6380 dbsize):$(redis-cli -p 6380 --raw MGET $(seq -f 'key:%g' 1 1000) | md5sum | cut -d ' ' -f 1)""#
        ),
        EngineSample(
            engine: "clickhouse", version: "18.16", port: 9001,
            write: """
                clickhouse-client --port 9001 --query "CREATE DATABASE shop"
                clickhouse-client --port 9001 --query "CREATE TABLE shop.events (d Date, id UInt64, note Nullable(String)) ENGINE = MergeTree() PARTITION BY toYYYYMM(d) ORDER BY id"
                clickhouse-client --port 9001 --query "INSERT INTO shop.events SELECT toDate('2026-01-01') + number % 60, number, if(number % 7 = 0, NULL, concat('tab\\there ', toString(number))) FROM system.numbers LIMIT 1000"
                """,
            checksum: #"clickhouse-client --port 9001 --format TSV --query "SELECT count(), sum(id), sum(length(ifNull(note, ''))), countIf(note IS NULL), min(d), max(d) FROM shop.events""#
        ),
    ]
}
