public import MCloudCore
import MCloudEngine
import MCloudPlanner
import MCloudProvider

/// Where a plan becomes JSON: docs/cli.md's plan document, with mcloud's additions (the operation, each cell's considered
/// clouds, the connections (`Connection+JSON.swift`), each change's reason, drift, dependencies and provider ID, the placement moves, the state and input
/// digest). Before and after are redacted. A placement-only plan has the operation `placement`, its note, and no
/// changes, state or digest. `PlanDocument+Parsing.swift` reads it back.
extension PlanDocument {
    /// The operation of a placement-only plan, beside the engine's apply and destroy.
    static let placementOperation = "placement"

    /// The whole document, every cell's every considered cloud and reason included: what `plan --out` saves and
    /// `plan --json --explain` prints.
    public var json: JSONValue { json(explained: true) }

    /// The document; without `explained`, each cell's `considered` keeps the chosen clouds, the runner-up and the
    /// rejected clouds counted by reason, and there are no `explanations`: a document proportional to the decision,
    /// not to cells times clouds (`plan --json`; docs/cli.md).
    public func json(explained: Bool) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("format_version", .string(Self.formatVersion)),
            ("operation", .string(deployment?.operation.rawValue ?? Self.placementOperation)),
            ("application", .string(application)),
        ]
        if let placementOnlyNote { fields.append(("note", .string(placementOnlyNote))) }
        if let placement {
            fields.append(("placement", placement.placementJSON))
            if explained { fields.append(("explanations", placement.explanationsJSON)) }
            fields.append(("considered", explained ? placement.consideredJSON : placement.consideredSummaryJSON))
            if !placement.connections.isEmpty { fields.append(("connections", .array(placement.connections.map(\.json)))) }
        }
        if let cost { fields.append(("cost", cost.json)) }
        if let policy { fields.append(("policy", policy.json)) }
        guard let deployment else { return .object(fields) }
        fields += [
            ("placement_moves", .array(deployment.moves.map(Self.json))),
            ("resource_changes", .array(deployment.changes.map(Self.json))),
            ("summary", .object(summary.map { ($0.action.rawValue, .int($0.count)) })),
            ("state", .object([("lineage", deployment.state.lineage.map(JSONValue.string) ?? .null), ("serial", .int(deployment.state.serial))])),
            ("input_digest", .string(deployment.inputDigest)),
            ("refreshed", .bool(deployment.refreshed)),
        ]
        if deployment.targeted { fields.append(("targeted", .bool(true))) }
        func list(_ name: String, _ values: [String]) { if !values.isEmpty { fields.append((name, .array(values.map(JSONValue.string)))) } }
        list("lost_clouds", deployment.lost)
        list("newly_lost", deployment.newlyLost)
        list("kept", deployment.kept.map(\.rawValue))
        list("newly_retained", deployment.newlyRetained.map(\.rawValue))
        list("recovered", deployment.recovered)
        return .object(fields)
    }

    static func json(_ move: PlacementMove) -> JSONValue {
        .object([
            ("cell", .string(move.cell)),
            ("replicas", .object(move.replicas.map { ($0.cloud, .object([("before", .int($0.before)), ("after", .int($0.after))])) })),
        ])
    }

    static func json(_ change: ResourceChange) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("address", .string(change.address.rawValue)), ("cloud", .string(change.cloud)), ("provider", .string(change.provider.rawValue)),
            ("type", .string(change.type.rawValue)), ("action", .string(change.action.rawValue)), ("reason", .string(change.reason)),
        ]
        if !change.drift.isEmpty { fields.append(("drift", .array(change.drift.map(JSONValue.string)))) }
        if !change.warnings.isEmpty { fields.append(("warnings", .array(change.warnings.map(JSONValue.string)))) }
        if let id = change.recorded?.providerID { fields.append(("provider_id", .string(id))) }
        fields.append(("dependencies", .array((change.after?.dependencies ?? change.recorded?.dependencies ?? []).map { .string($0.rawValue) })))
        // A resource that stays as it is carries no bodies: with thousands of them they would be most of the plan,
        // and `mcloud state show ADDRESS` has them.
        guard change.action != .noOp else { return .object(fields) }
        let shown = Self.shown(change)
        return .object(fields + [("before", shown.before ?? .null), ("after", shown.after ?? .null)])
    }

    /// A change's bodies as the document and the views show them: redacted.
    static func shown(_ change: ResourceChange) -> (before: JSONValue?, after: JSONValue?) {
        (change.before.map(SecretRedaction.redact), change.after.map { SecretRedaction.redact($0.body) })
    }
}

extension PlacementReport {
    /// The `placement` object of docs/cli.md's plan JSON (the bench checker reads the same shape).
    public var placementJSON: JSONValue {
        let cells = cells.map { cell -> (String, JSONValue) in
            var fields = Self.siteFields(cell.site)
            if let why = cell.why { fields.append(("why", .string(why))) }
            if !cell.warnings.isEmpty { fields.append(("warnings", .array(cell.warnings.map(JSONValue.string)))) }
            if let recovery = cell.recovery { fields.append(("recovery", Self.recoveryJSON(recovery))) }
            return (cell.name, .object(fields))
        }
        func amounts(_ list: [Amount]) -> JSONValue { .object(list.map { ($0.name, .rounded($0.amount)) }) }
        return .object([
            ("cells", .object(cells)),
            ("cdn", .object(cdns.map { ($0.name, .string($0.cloud)) })),
            ("cost", .object([
                ("currency", .string(cost.currency)),
                ("monthly", .rounded(cost.monthly)),
                ("byCloud", amounts(cost.byCloud)),
                ("byCell", amounts(cost.byCell)),
                ("byCDN", amounts(cost.byCDN)),
                ("lowerBound", .rounded(cost.lowerBound)),
                ("gap", .rounded(cost.gap)),
            ])),
        ])
    }

    /// `recovery`: `inCloud` and `disasterRecovery`, each `{ rpoSeconds, how }`; `rpoSeconds` is null where the engine
    /// gives no bound.
    static func recoveryJSON(_ recovery: RecoveryObjective) -> JSONValue {
        func bound(_ bound: RecoveryObjective.Bound) -> JSONValue {
            .object([("rpoSeconds", bound.seconds.map(JSONValue.int) ?? .null), ("how", .string(bound.how))])
        }
        var fields: [(String, JSONValue)] = []
        if let inCloud = recovery.inCloud { fields.append(("inCloud", bound(inCloud))) }
        if let leg = recovery.disasterRecovery { fields.append(("disasterRecovery", bound(leg))) }
        return .object(fields)
    }

    /// A cell's kind and where it runs: `replicas` by cloud, or `primary` and `backup`.
    static func siteFields(_ site: Site) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("kind", .string(site.kind))]
        switch site {
        case .replicas(let replicas):
            fields.append(("replicas", .object(replicas.map { ($0.cloud, .int($0.count)) })))
        case .database(let primary, let backup):
            fields.append(("primary", .string(primary)))
            if let backup { fields.append(("backup", .string(backup))) }
        }
        return fields
    }

    /// `explanations`: for every cell, every unused cloud and all its reasons.
    public var explanationsJSON: JSONValue {
        .object(explanations.map { explanation in
            (explanation.cell, .object(explanation.rejected.map { ($0.cloud, .array($0.reasons.map(JSONValue.string))) }))
        })
    }

    /// `considered` in brief: for every cell, the clouds chosen, the residency rules that apply, the runner-up and what
    /// moving there adds, and `rejected`, the number of clouds each filter turned away (a cloud counts once for each
    /// filter among its reasons; `cost` for clouds that passed but cost more), by filter name.
    public var consideredSummaryJSON: JSONValue {
        let counts = Dictionary(explanations.map { ($0.cell, $0.counts) }, uniquingKeysWith: { first, _ in first })
        return .object(considered.map { cell in
            let rejected = JSONValue.object((counts[cell.cell] ?? []).map { ($0.filter, .int($0.clouds)) })
            return (cell.cell, .object(Self.consideredHead(cell) + [("rejected", rejected)]))
        })
    }

    /// The chosen clouds, the residency rules and the runner-up of one cell, as both forms of `considered` begin.
    static func consideredHead(_ cell: ConsideredClouds) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("chosen", .array(cell.candidates.filter { $0.verdict == .chosen }.map { .string($0.cloud) })), ("residency", .string(cell.residency)),
        ]
        if let runnerUp = cell.runnerUp {
            fields.append(("runnerUp", .object([("cloud", .string(runnerUp.cloud)), ("delta", cell.runnerUpDelta.map { .rounded($0) } ?? .null)])))
        }
        return fields
    }

    /// `considered`: for every cell, the clouds chosen, the residency rules that apply, the runner-up and what moving
    /// there adds, then every cloud that passed its filters, cheapest first, with its verdict, cost, jurisdiction and
    /// capacity.
    public var consideredJSON: JSONValue {
        .object(considered.map { cell in
            var fields = Self.consideredHead(cell)
            fields.append(("clouds", .array(cell.candidates.map { candidate in
                var entry: [(String, JSONValue)] = [("cloud", .string(candidate.cloud)), ("verdict", .string(candidate.verdict.rawValue))]
                entry.append(("monthly", candidate.monthly.map { .rounded($0) } ?? .null))
                if let perReplica = candidate.perReplica { entry.append(("perReplica", .rounded(perReplica))) }
                if let replicas = candidate.replicas { entry.append(("replicas", .int(replicas))) }
                if let backup = candidate.backup { entry.append(("backup", .string(backup))) }
                entry += [("jurisdiction", .array(candidate.jurisdiction.map(JSONValue.string))), ("capacity", .string(candidate.capacity))]
                return .object(entry)
            })))
            return (cell.cell, .object(fields))
        })
    }
}

extension CostDiff {
    /// `cost`: `{ currency, before, after, delta }`, each side `{ monthly, byCloud, byCell, byCDN }` with names
    /// sorted; `before` and `delta` null when the state records no cost.
    public var json: JSONValue {
        func amounts(_ side: Amounts?) -> JSONValue {
            guard let side else { return .null }
            func map(_ list: [PlacementReport.Amount]) -> JSONValue { .object(list.map { ($0.name, .rounded($0.amount)) }) }
            return .object([("monthly", .rounded(side.monthly)), ("byCloud", map(side.byCloud)), ("byCell", map(side.byCell)), ("byCDN", map(side.byCDN))])
        }
        return .object([("currency", .string(currency)), ("before", amounts(before)), ("after", amounts(after)), ("delta", amounts(delta))])
    }
}

extension PolicyReport {
    /// `policy`: the outcome (`pass`, `warn`, `fail`) and every rule's verdict, in order.
    public var json: JSONValue {
        .object([
            ("outcome", .string(outcome.rawValue)),
            ("rules", .array(verdicts.map { verdict in
                .object([
                    ("policy", .string(verdict.policy)), ("index", .int(verdict.index)), ("rule", .string(verdict.rule)),
                    ("level", .string(verdict.level.rawValue)), ("source", .string(verdict.source.description)),
                    ("verdict", .string(!verdict.judged ? "not_judged" : verdict.passed ? "pass" : "fail")), ("message", .string(verdict.message)),
                    ("offenders", .array(verdict.offenders.map { .object([("name", .string($0.name)), ("detail", .string($0.detail))]) })),
                ])
            })),
        ])
    }
}
