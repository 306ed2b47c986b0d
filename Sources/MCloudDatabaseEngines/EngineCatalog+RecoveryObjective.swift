public import MCloudCore

extension EngineCatalog {
    /// What a cell on VMs can lose (docs/databases.md, "Recovery points"): inside its cloud, what its engine's
    /// replication loses when a standby takes over; across clouds, what the DR leg holds: PostgreSQL's WAL archive
    /// (`archive_timeout`, then the push), MariaDB's binary log (`BinaryLogArchive`), or the dumps' schedule at its
    /// longest gap. Nil for a managed engine, whose replication and backups are the cloud's own, and for a cell with
    /// neither standbys nor a DR leg.
    public static func recoveryObjective(_ database: Database, managed: Bool, hasLeg: Bool) -> RecoveryObjective? {
        guard !managed, let engine = Engine(named: database.engine) else { return nil }
        let inCloud = database.standbys > 0 ? standbyBound(engine) : nil
        let leg = hasLeg ? database.backup.map { legBound(engine, version: database.version, schedule: $0.schedule) } : nil
        guard inCloud != nil || leg != nil else { return nil }
        return RecoveryObjective(inCloud: inCloud, disasterRecovery: leg)
    }

    private static func standbyBound(_ engine: Engine) -> RecoveryObjective.Bound {
        switch recipes.first(where: { $0.engine == engine })?.replication?.mode {
        case .synchronous: RecoveryObjective.Bound(seconds: 0, how: "synchronous standby")
        case .semisynchronous: RecoveryObjective.Bound(seconds: 0, how: "semi-synchronous standby, asynchronous while none acknowledges")
        case .asynchronous: RecoveryObjective.Bound(seconds: nil, how: "asynchronous replica: what it has not received")
        case nil: RecoveryObjective.Bound(seconds: nil, how: "standbys that cannot replicate")
        }
    }

    private static func legBound(_ engine: Engine, version: String, schedule: String) -> RecoveryObjective.Bound {
        if engine == .postgresql {
            return RecoveryObjective.Bound(seconds: 2 * PostgreSQLArchive.archiveTimeout, how: "WAL archived within \(PostgreSQLArchive.archiveTimeout) s, then pushed")
        }
        if recipes.contains(where: { $0.engine == engine && $0.covers(version) && $0.logArchive != nil }) {
            return RecoveryObjective.Bound(seconds: 2 * BinaryLogArchive.interval, how: "binary log closed within \(BinaryLogArchive.interval) s, then pushed")
        }
        return RecoveryObjective.Bound(seconds: CronSchedule(schedule)?.longestGap(), how: "a dump on '\(schedule)', plus the dump's own time")
    }
}
