/// Known rows or keys for each engine Debian 12 ships, as shell run inside a database VM: how to write them, how to
/// print a checksum of them and how many bytes the engine holds for them. The bed tests and `mcloud-bench
/// database-vms` compare the checksum of the instance that was backed up with the one that restored the backup.
public struct EngineSample: Sendable, CustomStringConvertible {
    public var engine: String
    public var version: String
    /// Not the engine's default, so that the test shows the spec's port is used.
    public var port: Int
    public var write: String
    public var checksum: String
    /// Prints the bytes the engine stores for the rows (table and indexes, or Redis' dataset): what a restore's MB/s
    /// is counted in.
    public var size: String

    public var description: String { "\(engine) \(version)" }

    /// A thousand rows or keys per engine: what the bed tests write.
    public static let debian12 = debian12(rows: 1000)

    /// `rows` rows or keys per engine.
    public static func debian12(rows: Int) -> [EngineSample] {
        [
            EngineSample(
                engine: "postgresql", version: "15", port: 5433,
                write: #"runuser -u postgres -- psql -X -q -p 5433 -v ON_ERROR_STOP=1 -c "CREATE TABLE accounts (id int PRIMARY KEY, owner text, balance numeric); INSERT INTO accounts SELECT g, md5(g::text), g * 1.5 FROM generate_series(1, \#(rows)) g""#,
                checksum: #"runuser -u postgres -- psql -X -Atq -p 5433 -c "SELECT count(*) || ':' || md5(string_agg(id || '/' || owner || '/' || balance, ',' ORDER BY id)) FROM accounts""#,
                size: #"runuser -u postgres -- psql -X -Atq -p 5433 -c "SELECT pg_total_relation_size('accounts')""#
            ),
            EngineSample(
                engine: "mysql", version: "10.11", port: 3307,
                write: #"mariadb -e "CREATE DATABASE shop; USE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, item TEXT) ENGINE=InnoDB; INSERT INTO shop.orders SELECT seq, MD5(seq) FROM seq_1_to_\#(rows)""#,
                checksum: #"mariadb -N -e "SET SESSION group_concat_max_len = 1000000000; SELECT CONCAT(COUNT(*), ':', MD5(GROUP_CONCAT(id, '/', item ORDER BY id))) FROM shop.orders""#,
                size: #"mariadb -N -e "ANALYZE TABLE shop.orders" >/dev/null && mariadb -N -e "SELECT data_length + index_length FROM information_schema.tables WHERE table_schema = 'shop' AND table_name = 'orders'""#
            ),
            EngineSample(
                engine: "redis", version: "7.0", port: 6380,
                write: #"seq 1 \#(rows) | sed 's/.*/SET key:& value-&/' | redis-cli -p 6380 >/dev/null"#,
                checksum: #"echo "$(redis-cli -p 6380 dbsize):$(seq 1 \#(rows) | sed 's/^/GET key:/' | redis-cli -p 6380 --raw | md5sum | cut -d ' ' -f 1)""#,
                size: #"redis-cli -p 6380 INFO memory | tr -d '\r' | sed -n 's/^used_memory_dataset://p'"#
            ),
            EngineSample(
                engine: "clickhouse", version: "18.16", port: 9001,
                write: """
                    clickhouse-client --port 9001 --query "CREATE DATABASE shop"
                    clickhouse-client --port 9001 --query "CREATE TABLE shop.events (d Date, id UInt64, note Nullable(String)) ENGINE = MergeTree() PARTITION BY toYYYYMM(d) ORDER BY id"
                    clickhouse-client --port 9001 --query "INSERT INTO shop.events SELECT toDate('2026-01-01') + number % 60, number, if(number % 7 = 0, NULL, concat('tab\\there ', toString(number))) FROM system.numbers LIMIT \(rows)"
                    """,
                checksum: #"clickhouse-client --port 9001 --format TSV --query "SELECT count(), sum(id), sum(length(ifNull(note, ''))), countIf(note IS NULL), min(d), max(d) FROM shop.events""#,
                size: #"clickhouse-client --port 9001 --query "SELECT sum(data_uncompressed_bytes) FROM system.parts WHERE database = 'shop' AND active""#
            ),
        ]
    }
}
