import MCloudCore
import MCloudEngine
import MCloudPlanner
import MCloudProvider

/// A plan read back from `plan --out FILE`: the changes exactly as planned (checked against the state before apply)
/// and the placement they came from, so `show` prints what `plan` printed.
extension PlanDocument {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Parses a saved plan; `file` names it in errors.
    public static func parse(_ bytes: [UInt8], file: String) throws(Failure) -> PlanDocument {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw Failure(description: "\(file): not a saved plan: \(error.description)")
        }
        func fail(_ message: String) -> Failure { Failure(description: "\(file): not a saved mcloud plan: \(message)") }
        guard let version = document["format_version"]?.stringValue else { throw fail("format_version is missing") }
        guard version == formatVersion else {
            throw Failure(description: "\(file): plan format \(version) is not one this mcloud reads (\(formatVersion)); plan again")
        }
        guard let application = document["application"]?.stringValue else { throw fail("application is missing") }
        var placement = try document["placement"].map { (placement) throws(Failure) in
            try PlacementReport(
                placement: placement, explanations: document["explanations"] ?? .object([]), considered: document["considered"] ?? .object([]), fail: fail
            )
        }
        for (index, item) in (document["connections"]?.arrayItems ?? []).enumerated() {
            guard let connection = Connection(json: item) else { throw fail("connections[\(index)] is not a connection") }
            placement?.connections.append(connection)
        }
        let operationText = document["operation"]?.stringValue
        if operationText == placementOperation {
            guard let placement else { throw fail("a placement-only plan needs placement") }
            return PlanDocument(placementOnly: placement, application: application, note: document["note"]?.stringValue ?? "")
        }
        guard let operationText, let operation = DeploymentPlan.Operation(rawValue: operationText) else {
            throw fail("operation must be apply, destroy or placement")
        }
        guard let stateObject = document["state"], let serial = stateObject["serial"]?.intValue else { throw fail("state.serial is missing") }
        let lineage = stateObject["lineage"]?.stringValue
        guard let digest = document["input_digest"]?.stringValue else { throw fail("input_digest is missing") }
        guard case .array(let items)? = document["resource_changes"] else { throw fail("resource_changes is missing") }
        var changes: [ResourceChange] = []
        for (index, item) in items.enumerated() {
            changes.append(try change(item, at: index, fail: fail))
        }
        let moves = (document["placement_moves"]?.arrayItems ?? []).compactMap(move)
        let deployment = DeploymentPlan(
            operation: operation, application: application, changes: changes, moves: moves,
            state: .init(lineage: lineage, serial: serial), inputDigest: digest, refreshed: document["refreshed"] == .bool(true),
            targeted: document["targeted"] == .bool(true), lost: names(document["lost_clouds"]), newlyLost: names(document["newly_lost"]),
            kept: names(document["kept"]).map { ResourceAddress($0) }, newlyRetained: names(document["newly_retained"]).map { ResourceAddress($0) },
            recovered: names(document["recovered"])
        )
        let cost = try document["cost"].map { (cost) throws(Failure) in try CostDiff(json: cost, fail: fail) }
        let policy = try document["policy"].map { (policy) throws(Failure) in try PolicyReport(json: policy, fail: fail) }
        return PlanDocument(deployment: deployment, placement: placement, cost: cost, policy: policy)
    }

    private static func names(_ list: JSONValue?) -> [String] {
        (list?.arrayItems ?? []).compactMap(\.stringValue)
    }

    private static func change(_ item: JSONValue, at index: Int, fail: (String) -> Failure) throws(Failure) -> ResourceChange {
        let path = "resource_changes[\(index)]"
        guard let addressText = item["address"]?.stringValue, let cloud = item["cloud"]?.stringValue,
            let providerText = item["provider"]?.stringValue, let typeText = item["type"]?.stringValue,
            let actionText = item["action"]?.stringValue
        else { throw fail("\(path) needs address, cloud, provider, type and action") }
        let address = ResourceAddress(addressText), provider = ProviderName(providerText), type = ResourceKind(typeText)
        guard let action = ResourceChange.Action(rawValue: actionText) else { throw fail("\(path).action \"\(actionText)\" is not an action") }
        let dependencies = (item["dependencies"]?.arrayItems ?? []).compactMap(\.stringValue).map { ResourceAddress($0) }
        let before = item["before"].flatMap { $0 == .null ? nil : $0 }
        var after: DesiredResource?
        if let body = item["after"], body != .null {
            after = DesiredResource(address: address, provider: provider, cloud: cloud, type: type, body: body, dependencies: dependencies)
        }
        guard after != nil || action == .delete || action == .noOp else { throw fail("\(path): a \(action.rawValue) needs after") }
        var recorded: ResourceState?
        if let id = item["provider_id"]?.stringValue {
            recorded = ResourceState(
                address: address, provider: provider, cloud: cloud, providerID: id,
                attributes: Dictionary((before ?? .object([])).objectPairs, uniquingKeysWith: { first, _ in first }), dependencies: dependencies
            )
        }
        return ResourceChange(
            address: address, provider: provider, cloud: cloud, type: type, action: action, reason: item["reason"]?.stringValue ?? "",
            drift: (item["drift"]?.arrayItems ?? []).compactMap(\.stringValue), before: before, after: after, recorded: recorded,
            warnings: (item["warnings"]?.arrayItems ?? []).compactMap(\.stringValue)
        )
    }

    private static func move(_ item: JSONValue) -> PlacementMove? {
        guard let cell = item["cell"]?.stringValue else { return nil }
        let replicas = (item["replicas"]?.objectPairs ?? []).map { cloud, counts in
            PlacementMove.Replicas(cloud: cloud, before: counts["before"]?.intValue ?? 0, after: counts["after"]?.intValue ?? 0)
        }
        return PlacementMove(cell: cell, replicas: replicas)
    }
}

extension PlacementReport {
    /// The report of a saved plan's `placement`, `explanations` and `considered`.
    init(placement: JSONValue, explanations: JSONValue, considered: JSONValue, fail: (String) -> PlanDocument.Failure) throws(PlanDocument.Failure) {
        var cells: [Cell] = []
        for (name, cell) in placement["cells"]?.objectPairs ?? [] {
            let site: Site
            switch cell["kind"]?.stringValue {
            case "Service":
                site = .replicas((cell["replicas"]?.objectPairs ?? []).map { CloudCount(cloud: $0.0, count: $0.1.intValue ?? 0) })
            case "Database":
                guard let primary = cell["primary"]?.stringValue else { throw fail("placement.cells.\(name) has no primary") }
                site = .database(primary: primary, backup: cell["backup"]?.stringValue)
            default:
                throw fail("placement.cells.\(name).kind must be Service or Database")
            }
            cells.append(Cell(
                name: name, site: site, why: cell["why"]?.stringValue, warnings: (cell["warnings"]?.arrayItems ?? []).compactMap(\.stringValue),
                recovery: try cell["recovery"].map { recovery throws(PlanDocument.Failure) in try Self.recovery(recovery, cell: name, fail: fail) }
            ))
        }
        let cost = placement["cost"] ?? .null
        guard let currency = cost["currency"]?.stringValue, let monthly = cost["monthly"]?.doubleValue else {
            throw fail("placement.cost needs currency and monthly")
        }
        func amounts(_ key: String) -> [Amount] { (cost[key]?.objectPairs ?? []).map { Amount(name: $0.0, amount: $0.1.doubleValue ?? 0) } }
        self.init(
            cells: cells, cdns: (placement["cdn"]?.objectPairs ?? []).map { CDN(name: $0.0, cloud: $0.1.stringValue ?? "") },
            cost: Cost(
                currency: currency, monthly: monthly, byCloud: amounts("byCloud"), byCell: amounts("byCell"), byCDN: amounts("byCDN"),
                lowerBound: cost["lowerBound"]?.doubleValue ?? 0, gap: cost["gap"]?.doubleValue ?? 0
            ),
            explanations: explanations.objectPairs.map { cell, rejected in
                Explanation(cell: cell, rejected: rejected.objectPairs.map { .init(cloud: $0.0, reasons: $0.1.arrayItems.compactMap(\.stringValue)) })
            },
            considered: try considered.objectPairs.map { (cell, value) throws(PlanDocument.Failure) in
                var candidates: [ConsideredClouds.Candidate] = []
                for (index, item) in value["clouds"]?.arrayItems.enumerated() ?? [].enumerated() {
                    guard let cloud = item["cloud"]?.stringValue, let verdict = item["verdict"]?.stringValue.flatMap(ConsideredClouds.Verdict.init) else {
                        throw fail("considered.\(cell).clouds[\(index)] needs a cloud and a verdict")
                    }
                    candidates.append(ConsideredClouds.Candidate(
                        cloud: cloud, verdict: verdict, monthly: item["monthly"]?.doubleValue, perReplica: item["perReplica"]?.doubleValue,
                        replicas: item["replicas"]?.intValue, backup: item["backup"]?.stringValue,
                        jurisdiction: (item["jurisdiction"]?.arrayItems ?? []).compactMap(\.stringValue), capacity: item["capacity"]?.stringValue ?? ""
                    ))
                }
                let kind: MCloudCore.Cell.Kind = cells.first { $0.name == cell }?.site.kind == "Database" ? .database : .service
                return ConsideredClouds(
                    cell: cell, kind: kind, residency: value["residency"]?.stringValue ?? "", candidates: candidates,
                    runnerUpDelta: value["runnerUp"]?["delta"]?.doubleValue
                )
            }
        )
    }
}

extension CostDiff {
    /// A saved plan's `cost`; `delta` follows from the two sides.
    init(json: JSONValue, fail: (String) -> PlanDocument.Failure) throws(PlanDocument.Failure) {
        guard let currency = json["currency"]?.stringValue else { throw fail("cost.currency is missing") }
        func amounts(_ key: String) throws(PlanDocument.Failure) -> Amounts? {
            guard let side = json[key], side != .null else { return nil }
            guard let monthly = side["monthly"]?.doubleValue else { throw fail("cost.\(key).monthly is missing") }
            func list(_ name: String) -> [PlacementReport.Amount] {
                (side[name]?.objectPairs ?? []).map { PlacementReport.Amount(name: $0.0, amount: $0.1.doubleValue ?? 0) }
            }
            return Amounts(monthly: monthly, byCloud: list("byCloud"), byCell: list("byCell"), byCDN: list("byCDN"))
        }
        guard let after = try amounts("after") else { throw fail("cost.after is missing") }
        self.init(currency: currency, before: try amounts("before"), after: after)
    }
}

extension PolicyReport {
    /// A saved plan's `policy`; the outcome follows from the verdicts.
    init(json: JSONValue, fail: (String) -> PlanDocument.Failure) throws(PlanDocument.Failure) {
        var verdicts: [Verdict] = []
        for (index, item) in (json["rules"]?.arrayItems ?? []).enumerated() {
            let path = "policy.rules[\(index)]"
            guard let policy = item["policy"]?.stringValue, let position = item["index"]?.intValue, let rule = item["rule"]?.stringValue,
                  let level = item["level"]?.stringValue.flatMap(Policy.Level.init(rawValue:)), let source = item["source"]?.stringValue,
                  let verdict = item["verdict"]?.stringValue, let message = item["message"]?.stringValue
            else { throw fail("\(path) needs policy, index, rule, level, source, verdict and message") }
            // FILE:LINE:COL, the file possibly holding colons of its own.
            let parts = source.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count >= 3, let line = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1]) else {
                throw fail("\(path).source \"\(source)\" is not FILE:LINE:COL")
            }
            let location = SourceLocation(file: parts.dropLast(2).joined(separator: ":"), line: line, column: column)
            let offenders = (item["offenders"]?.arrayItems ?? []).map { Offender(name: $0["name"]?.stringValue ?? "", detail: $0["detail"]?.stringValue ?? "") }
            verdicts.append(Verdict(
                policy: policy, index: position, rule: rule, level: level, source: location, passed: verdict != "fail", judged: verdict != "not_judged",
                message: message, offenders: offenders
            ))
        }
        self.init(verdicts: verdicts)
    }
}

extension PlacementReport {
    /// A cell's `recovery` as `recoveryJSON` writes it.
    private static func recovery(_ value: JSONValue, cell: String, fail: (String) -> PlanDocument.Failure) throws(PlanDocument.Failure) -> RecoveryObjective {
        func bound(_ key: String) throws(PlanDocument.Failure) -> RecoveryObjective.Bound? {
            guard let bound = value[key] else { return nil }
            guard let how = bound["how"]?.stringValue, let seconds = bound["rpoSeconds"], seconds == .null || seconds.intValue != nil else {
                throw fail("placement.cells.\(cell).recovery.\(key) needs rpoSeconds (a whole number or null) and how")
            }
            return RecoveryObjective.Bound(seconds: seconds.intValue, how: how)
        }
        return RecoveryObjective(inCloud: try bound("inCloud"), disasterRecovery: try bound("disasterRecovery"))
    }
}
