public import MCloudCore
import MCloudProvider

extension StatusDocument {
    /// `status --json` (docs/status.md): keys in a fixed order, optional ones left out when there is nothing to say.
    public var json: JSONValue {
        .object([
            ("format_version", .string(Self.formatVersion)), ("application", .string(application)), ("read_at", .int(time)),
        ] + Self.fields(verdict) + [
            ("clouds", .array(clouds.map { cloud in
                .object([("name", .string(cloud.name)), ("up", .bool(cloud.up))] + (cloud.reason.map { [("reason", JSONValue.string($0))] } ?? []))
            })),
            ("cells", .array(cells.map(json))),
        ])
    }

    private func json(_ cell: Cell) -> JSONValue {
        var fields: [(String, JSONValue)] = [("name", .string(cell.name))]
        if let audience = cell.audience { fields.append(("audience", .string(audience))) }
        if let law = cell.law { fields.append(("law", .string(law))) }
        return .object(fields + Self.fields(cell.verdict) + [("sites", .array(cell.sites.map(json)))])
    }

    private func json(_ site: Site) -> JSONValue {
        var fields: [(String, JSONValue)] = [("cloud", .string(site.cloud))] + Self.fields(site.verdict)
        if let replicas = site.replicas {
            fields.append(("replicas", .object([("desired", .int(replicas.desired)), ("ready", .int(replicas.ready)), ("updated", .int(replicas.updated))])))
        }
        if !site.databases.isEmpty {
            fields.append(("databases", .array(site.databases.map { .object([("role", .string($0.role))] + Self.fields($0.verdict)) })))
        }
        if !site.backups.isEmpty {
            fields.append(("backups", .array(site.backups.map { backup in
                var leg: [(String, JSONValue)] = [("bucket", .string(backup.bucket))]
                if let newest = backup.newest { leg += [("newest", .int(newest)), ("newest_age_seconds", .int(time - newest))] }
                if let archived = backup.archived { leg += [("archived", .int(archived)), ("archived_age_seconds", .int(time - archived))] }
                if !backup.standbys.isEmpty {
                    leg.append(("standbys", .array(backup.standbys.map { standby in
                        .object([
                            ("name", .string(standby.name)), ("state", .string(standby.state)), ("sync", .string(standby.sync)),
                            ("lag_seconds", .rounded(standby.lagSeconds, places: 3)), ("lag_bytes", .int(standby.lagBytes)),
                        ])
                    })))
                }
                return .object(leg + Self.fields(backup.verdict))
            })))
        }
        if let cdn = site.cdn { fields.append(("cdn", .string(cdn))) }
        fields.append(("drift", .array(site.drift.map(JSONValue.string))))
        return .object(fields)
    }

    private static func fields(_ verdict: StatusVerdict) -> [(String, JSONValue)] {
        [("health", .string(verdict.health.rawValue))] + (verdict.reason.map { [("reason", JSONValue.string($0))] } ?? [])
    }
}
