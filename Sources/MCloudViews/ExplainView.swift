import MCloudCore
public import MCloudPlanner

/// `mcloud explain CELL`: why one cell went where it did, what it costs, the runner-up, the clouds considered (every
/// one that passed the cell's filters, with what the cell would cost there), every other cloud's reasons, and the
/// connections it makes or takes.
public enum ExplainView {
    /// Nil when the plan has no cell of that name.
    public static func render(cell name: String, in report: PlacementReport) -> String? {
        guard let cell = report.cells.first(where: { $0.name == name }) else { return nil }
        let currency = report.cost.currency
        let considered = report.considered.first { $0.cell == name }
        var text = "\(name) (\(cell.site.kind))\n"
        text += "  placement: \(PlacementView.describe(cell.site))\n"
        text += "  monthly:   \(monthly(report.cost.byCell.first { $0.name == name }?.amount ?? 0, considered: considered, site: cell.site, currency: currency))\n"
        text += "  why:       \(cell.why ?? "")\n"
        text += "  runner-up: \(considered.flatMap { runnerUp($0, site: cell.site, currency: currency) } ?? "none: every other cloud breaks a hard rule or has no room, listed below")\n"
        if let considered, !considered.candidates.isEmpty {
            let costs = switch cell.site {
            case .replicas: "ALL HERE is every replica at that cloud's prices"
            case .database: "MONTHLY is the primary there with its standbys, backup leg and its services' egress"
            }
            text += "  residency: \(considered.residency)\n"
            text += "  considered (every cloud that passes the filters, cheapest first; \(currency) a month; \(costs)):\n"
            text += indent(table(considered, site: cell.site), by: 2)
        }
        text += "  not used:\n"
        for rejection in report.explanations.first(where: { $0.cell == name })?.rejected ?? [] {
            for reason in rejection.reasons { text += "    \(rejection.cloud): \(reason)\n" }
        }
        let connections = report.connections.filter { $0.dependent.cell.name == name || $0.target.cell.name == name }
        if !connections.isEmpty {
            text += "  connections (its dependencies in each cluster it runs in, and its dependents'):\n"
            for connection in connections { text += "    \(ConnectionsView.line(connection))\n" }
        }
        return text
    }

    /// The cell's cost as the plan counts it. A database's chosen row also counts the egress of the services that use it,
    /// which the plan counts under those services: the header then gives the row's amount and says what is in it, so the
    /// two never disagree unexplained.
    static func monthly(_ amount: Double, considered: ConsideredClouds?, site: PlacementReport.Site, currency: String) -> String {
        guard case .database = site, let row = considered?.candidates.first(where: { $0.verdict == .chosen })?.monthly,
              Money.decimals(row, places: 2) != Money.decimals(amount, places: 2) else { return Money.format(amount, currency) }
        let egress = Money.decimals(row - amount, places: 2)
        return "\(Money.format(row, currency)): \(Money.decimals(amount, places: 2)) the database with its standbys and backup leg, \(egress) its services' egress (counted under those services in the plan's cost)"
    }

    /// A cell no placement fits: its summary, the hints that were checked to place it, and every cloud with the
    /// filters that rejected it.
    public static func render(failed cell: PlacementFailure.InfeasibleCell) -> String {
        var text = "\(cell.cell) (cannot be placed)\n"
        text += "  summary:   \(cell.summary)\n"
        for hint in cell.hints { text += "  hint:      \(hint)\n" }
        if cell.hints.isEmpty { text += "  hint:      none found that places it (each is checked before it is shown)\n" }
        text += "  rejected (every cloud and each filter it fails):\n"
        for rejection in cell.rejected {
            for reason in rejection.reasons { text += "    \(rejection.cloud): \(reason)\n" }
        }
        return text
    }

    /// A CDN: the cloud it went to, every cloud with a PoP in each jurisdiction it reaches (with its cost there), and
    /// every other cloud's reasons.
    public static func render(cdn explanation: CDNExplanation, placedOn cloud: String, currency: String) -> String {
        let chosen = explanation.candidates.first { $0.cloud == cloud }
        let others = explanation.candidates.filter { $0.cloud != cloud }
        let count = explanation.candidates.count
        var text = "\(explanation.cdn) (CDN)\n"
        text += "  placement: \(cloud)\n"
        text += "  monthly:   \(Money.format(chosen?.monthly ?? 0, currency))\n"
        text += "  why:       the cheapest of the \(count == 1 ? "1 cloud" : "\(count) clouds") with a point of presence in every jurisdiction it reaches: \(explanation.reaches.joined(separator: ", "))\n"
        if let next = others.first, let chosen {
            text += "  runner-up: \(next.cloud): it would cost \(Money.format(next.monthly - chosen.monthly, currency)) a month more\n"
        } else {
            text += "  runner-up: none: no other cloud has a point of presence in each of them, listed below\n"
        }
        text += "  considered (every cloud with a PoP in each jurisdiction it reaches, cheapest first; \(currency) a month):\n"
        let rows = [["CLOUD", "VERDICT", "MONTHLY", "POPS"]] + explanation.candidates.map { candidate in
            let verdict = candidate.cloud == cloud ? "chosen" : candidate.cloud == others.first?.cloud ? "runner-up" : "dearer"
            return [candidate.cloud, verdict, Money.decimals(candidate.monthly, places: 2), "[\(candidate.pops.joined(separator: ", "))]"]
        }
        text += indent(PlacementView.table(rows, rightAligned: [2]), by: 2)
        text += "  not used:\n"
        for rejection in explanation.rejected {
            for reason in rejection.reasons { text += "    \(rejection.cloud): \(reason)\n" }
        }
        return text
    }

    static func runnerUp(_ considered: ConsideredClouds, site: PlacementReport.Site, currency: String) -> String? {
        guard let candidate = considered.runnerUp, let delta = considered.runnerUpDelta else { return nil }
        switch site {
        case .replicas:
            return "\(candidate.cloud): a replica there costs \(Money.format(delta, currency)) a month more than the dearest one chosen"
        case .database:
            return "\(candidate.cloud): moving the primary there would cost \(Money.format(delta, currency)) a month more"
        }
    }

    /// A service's candidates with their replicas and price per replica; a database's with the backup leg it would have.
    static func table(_ considered: ConsideredClouds, site: PlacementReport.Site) -> String {
        let money = { (value: Double?) in value.map { Money.decimals($0, places: 2) } ?? "-" }
        switch site {
        case .replicas:
            let rows = [["CLOUD", "VERDICT", "REPLICAS", "PER REPLICA", "ALL HERE", "JURISDICTION", "CAPACITY"]] + considered.candidates.map { candidate in
                [candidate.cloud, candidate.verdict.rawValue, String(candidate.replicas ?? 0), money(candidate.perReplica), money(candidate.monthly),
                 tags(candidate), candidate.capacity]
            }
            return PlacementView.table(rows, rightAligned: [2, 3, 4])
        case .database:
            let rows = [["CLOUD", "VERDICT", "MONTHLY", "BACKUP", "JURISDICTION", "CAPACITY"]] + considered.candidates.map { candidate in
                [candidate.cloud, candidate.verdict.rawValue, money(candidate.monthly), candidate.backup ?? "-", tags(candidate), candidate.capacity]
            }
            return PlacementView.table(rows, rightAligned: [2])
        }
    }

    static func tags(_ candidate: ConsideredClouds.Candidate) -> String {
        "[\(candidate.jurisdiction.joined(separator: ", "))]"
    }

    private static func indent(_ text: String, by spaces: Int) -> String {
        let padding = String(repeating: " ", count: spaces)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : padding + $0 }.joined(separator: "\n")
    }
}
