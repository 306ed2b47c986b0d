import MCloudCore
import MCloudDatabaseEngines
import MCloudYAML

extension Decoder {
    func database(_ spec: YAMLNode, _ metadata: Metadata) -> Database? {
        let keys = ["engine", "version", "scope", "size", "data", "standbys", "backup", "hosting"]
        guard let fields = mapping(spec, "spec", keys: keys, required: ["engine", "version", "size"]) else { return nil }
        // `mariadb` is the `mysql` engine (docs/databases.md).
        let engine = fields["engine"].flatMap { name($0, "spec.engine") }.map(Engine.canonicalName)
        let version = fields["version"].flatMap { nonEmptyString($0, "spec.version") }
        let scope = fields["scope"].map { choice($0, "spec.scope", as: Scope.self) } ?? .perAudience
        let size = fields["size"].flatMap { self.size($0) }
        let data = fields["data"].map { names($0, "spec.data") } ?? []
        let standbys = fields["standbys"].map { int($0, "spec.standbys", max: 8) } ?? 0
        let backup = fields["backup"].map { self.backup($0) }
        let hosting = fields["hosting"].map { choice($0, "spec.hosting", as: Database.Hosting.self) } ?? .any
        guard let engine, let version, let scope, let size, let data, let standbys, backup != .some(nil), let hosting else { return nil }
        // A managed engine's backups stay in its cloud, so failover has nothing to restore it from (docs/dr.md).
        if hosting == .managed, let recovery = fields["backup"]?.mapping?.first(where: { $0.key.scalar?.value == "disasterRecovery" }),
           backup??.disasterRecovery?.restore == .failover {
            error(
                recovery.key.location,
                "spec.backup.disasterRecovery: failover cannot restore a managed engine (hosting: managed) from its DR leg; set hosting: vm, or disasterRecovery.restore: manual to restore it by hand"
            )
            return nil
        }
        return Database(
            name: metadata.name, labels: metadata.labels, engine: engine, version: version, scope: scope, size: size,
            data: data, standbys: standbys, backup: backup ?? nil, hosting: hosting, location: metadata.location
        )
    }

    /// Plain numbers of vCPU and GiB, as in the spec; Kubernetes units here are a likely slip and get a hint.
    private func size(_ node: YAMLNode) -> Database.Size? {
        let keys = ["vcpu", "memoryGiB", "storageGiB"]
        guard let fields = mapping(node, "spec.size", keys: keys, required: keys) else { return nil }
        func amount(_ key: String, unit: String) -> Double? {
            guard let node = fields[key] else { return nil }
            if case .string(let text) = node.scalar?.resolved, text.contains(where: { $0.isLetter }) {
                let digits = text.prefix { $0.isNumber || $0 == "." }
                error(node.location, "\(fields.path(key)) is a plain number of \(unit); write \(digits.isEmpty ? "a number" : String(digits)), not \"\(text)\"")
                return nil
            }
            return number(node, fields.path(key), positive: true)
        }
        let vcpu = amount("vcpu", unit: "vCPU")
        let memory = amount("memoryGiB", unit: "GiB")
        let storage = amount("storageGiB", unit: "GiB")
        guard let vcpu, let memory, let storage else { return nil }
        return Database.Size(vcpu: vcpu, memoryGiB: memory, storageGiB: storage)
    }

    private func backup(_ node: YAMLNode) -> Database.Backup? {
        let keys = ["schedule", "retentionDays", "disasterRecovery"]
        guard let fields = mapping(node, "spec.backup", keys: keys, required: ["schedule", "retentionDays"]) else { return nil }
        var schedule: String?
        if let node = fields["schedule"], let text = string(node, "spec.backup.schedule") {
            if let problem = CronSchedule.problem(in: text) {
                error(node.location, "spec.backup.schedule: \"\(text)\" is not a cron schedule: \(problem)")
            } else {
                schedule = text
            }
        }
        let retention = fields["retentionDays"].flatMap { int($0, "spec.backup.retentionDays", min: 1, max: 3650) }
        var recovery: Database.DisasterRecovery??
        if let node = fields["disasterRecovery"] {
            let keys = ["differentVendor", "changeGiBDay", "restore"]
            // `disasterRecovery: {}` still asks for a backup leg (docs/planner.md, precise semantics 8).
            if let dr = mapping(node, "spec.backup.disasterRecovery", keys: keys) {
                let vendor = dr["differentVendor"].map { bool($0, dr.path("differentVendor")) } ?? false
                let change = dr["changeGiBDay"].map { number($0, dr.path("changeGiBDay")) } ?? 0
                let restore = dr["restore"].map { choice($0, dr.path("restore"), as: Database.DisasterRecovery.Restore.self) } ?? .failover
                if let vendor, let change, let restore {
                    recovery = .some(Database.DisasterRecovery(differentVendor: vendor, changeGiBDay: change, restore: restore))
                } else {
                    recovery = .some(nil)
                }
            } else {
                recovery = .some(nil)
            }
        }
        guard let schedule, let retention, recovery != .some(nil) else { return nil }
        return Database.Backup(schedule: schedule, retentionDays: retention, disasterRecovery: recovery ?? nil)
    }
}
