import MCloudProvider

/// The tables of the `postgres://` backend and every statement it runs; values are always `$n` parameters. See
/// docs/state.md for the layout and why the body is `text`.
enum PostgresSchema {
    static let stateTable = PostgresTableNames.state
    static let historyTable = PostgresTableNames.history
    static let locksTable = PostgresTableNames.locks
    /// How many replaced versions each workspace keeps in the history table.
    static let historyLimit = 10
    /// Serializes the creation of the tables by several first users: `CREATE TABLE IF NOT EXISTS` can race.
    static let creationLockKey: Int64 = 0x6d63_6c6f_7564_0001

    static let tablesExist = """
        SELECT to_regclass('\(stateTable)') IS NOT NULL AND to_regclass('\(historyTable)') IS NOT NULL
            AND to_regclass('\(locksTable)') IS NOT NULL
        """

    /// The body is text, not jsonb: jsonb would drop a repeated key and reorder fields, hiding damage from the
    /// strict reader and changing the bytes mcloud wrote. `lineage` and `serial` repeat the body's for people
    /// querying the table; mcloud reads only the body.
    static let createTables = [
        """
        CREATE TABLE IF NOT EXISTS \(stateTable) (
            workspace text PRIMARY KEY,
            lineage text NOT NULL,
            serial bigint NOT NULL,
            body text NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS \(historyTable) (
            workspace text NOT NULL,
            lineage text NOT NULL,
            serial bigint NOT NULL,
            body text NOT NULL,
            replaced_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (workspace, lineage, serial)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS \(locksTable) (
            workspace text PRIMARY KEY,
            id text NOT NULL,
            pid integer NOT NULL,
            host text NOT NULL,
            operation text NOT NULL,
            who text NOT NULL,
            created timestamptz NOT NULL
        )
        """,
    ]

    static let readState = "SELECT body FROM \(stateTable) WHERE workspace = $1"
    static let readStateForUpdate = readState + " FOR UPDATE"
    /// Copies the stored body (locked `FOR UPDATE` in the same transaction) on the server: 20 MiB of state need
    /// not travel back. Lineage and serial are the ones mcloud read in that body.
    static let keepReplaced = """
        INSERT INTO \(historyTable) (workspace, lineage, serial, body)
            SELECT workspace, $2, $3::bigint, body FROM \(stateTable) WHERE workspace = $1
        ON CONFLICT (workspace, lineage, serial) DO UPDATE SET body = excluded.body, replaced_at = now()
        """
    /// For the rest of the write's transaction, new bodies are compressed with LZ4 where the server has it
    /// (PostgreSQL 14 and later, built with lz4, as Debian's is); elsewhere no row matches and nothing changes.
    /// LZ4 makes a 20-MiB state about 340 KiB against pglz's 2 MiB and unpacks several times faster on each read.
    static let preferLZ4 = """
        SELECT set_config('default_toast_compression', 'lz4', true) FROM pg_settings
            WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)
        """
    static let trimHistory = """
        DELETE FROM \(historyTable) WHERE workspace = $1 AND (lineage, serial) NOT IN (
            SELECT lineage, serial FROM \(historyTable) WHERE workspace = $1 ORDER BY replaced_at DESC, serial DESC LIMIT \(historyLimit))
        """
    static let storeState = """
        INSERT INTO \(stateTable) (workspace, lineage, serial, body) VALUES ($1, $2, $3::bigint, $4)
        ON CONFLICT (workspace) DO UPDATE
            SET lineage = excluded.lineage, serial = excluded.serial, body = excluded.body, updated_at = now()
        """

    static let readLock = """
        SELECT id, pid, host, operation, who, extract(epoch FROM created)::bigint FROM \(locksTable) WHERE workspace = $1
        """
    static let readLockForShare = readLock + " FOR SHARE"
    static let readLockForUpdate = readLock + " FOR UPDATE"
    /// Replaces the row of a holder whose session died: holding the advisory lock proves that row is stale.
    static let storeLock = """
        INSERT INTO \(locksTable) (workspace, id, pid, host, operation, who, created)
        VALUES ($1, $2, $3::integer, $4, $5, $6, to_timestamp($7::bigint))
        ON CONFLICT (workspace) DO UPDATE SET id = excluded.id, pid = excluded.pid, host = excluded.host,
            operation = excluded.operation, who = excluded.who, created = excluded.created
        """
    static let deleteLock = "DELETE FROM \(locksTable) WHERE workspace = $1 AND id = $2"

    static let tryAdvisoryLock = "SELECT pg_try_advisory_lock($1::bigint)"
    static let advisoryUnlock = "SELECT pg_advisory_unlock($1::bigint)"
    static let creationLock = "SELECT pg_advisory_xact_lock($1::bigint)"
    /// The server sessions holding a workspace's advisory lock: a bigint key shows in pg_locks as its high and low
    /// 32 bits with objsubid 1.
    static let advisoryHolders = """
        SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND classid = (($1::bigint >> 32) & 4294967295)::oid AND objid = ($1::bigint & 4294967295)::oid
            AND pid <> pg_backend_pid()
        """
    /// Waits up to 5 s for the session to end (PostgreSQL 14 and later), so its advisory lock is gone on return.
    static let terminate = "SELECT pg_terminate_backend($1::integer, 5000)"
}
