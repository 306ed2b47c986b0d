import MCloudCore

/// The human view of a placement: where each cell runs, cost by cloud, the bound, and why each cell went where it
/// did; with `explain`, every rejected cloud's reasons.
public enum PlacementView {
    public static func render(_ report: PlacementReport, application: String, explain: Bool) -> String {
        let cost = report.cost
        var text = "Placement of \(application) (\(report.cellsOnClouds))\n\n"

        var rows = [["CELL", "KIND", "PLACEMENT", "MONTHLY"]]
        for cell in report.cells {
            rows.append([cell.name, cell.site.kind, describe(cell.site), money(cost.byCell, cell.name)])
        }
        for cdn in report.cdns {
            rows.append([cdn.name, "CDN", cdn.cloud, money(cost.byCDN, cdn.name)])
        }
        text += table(rows) + "\n"

        var costs = [["CLOUD", "MONTHLY (\(cost.currency))"]]
        for amount in cost.byCloud { costs.append([amount.name, money(amount.amount)]) }
        costs.append(["total", money(cost.monthly)])
        text += table(costs)
        text += "No placement can cost less than \(money(cost.lowerBound)) \(cost.currency); this one is within \(Money.decimals(cost.gap * 100, places: 2))% of that bound.\n\n"

        text += "Why\n"
        for cell in report.cells {
            text += "  \(cell.name): \(cell.why ?? "")\n"
        }
        let recovering = report.cells.filter { $0.recovery != nil }
        if !recovering.isEmpty {
            text += "\nRecovery points (the most a cell can lose: its primary's VM inside the cloud, or the whole cloud)\n"
            for cell in recovering {
                guard let recovery = cell.recovery else { continue }
                let parts = [recovery.inCloud.map { "in cloud \(bound($0))" }, recovery.disasterRecovery.map { "across clouds \(bound($0))" }]
                text += "  \(cell.name): \(parts.compactMap { $0 }.joined(separator: "; "))\n"
            }
        }
        let warned = report.cells.filter { !$0.warnings.isEmpty }
        if !warned.isEmpty {
            text += "\nWarnings\n"
            for cell in warned {
                for warning in cell.warnings { text += "  ! \(cell.name): \(warning)\n" }
            }
        }
        if explain {
            text += "\nRejected clouds\n"
            for explanation in report.explanations {
                text += "  \(explanation.cell)\n"
                for rejection in explanation.rejected {
                    for reason in rejection.reasons {
                        text += "    \(rejection.cloud): \(reason)\n"
                    }
                }
            }
        }
        return text
    }

    static func bound(_ bound: RecoveryObjective.Bound) -> String {
        "\(bound.seconds.map { $0 == 0 ? "0" : DurationText.text($0) } ?? "unbounded") (\(bound.how))"
    }

    static func describe(_ site: PlacementReport.Site) -> String {
        switch site {
        case .database(let primary, let backup): return "primary \(primary)" + (backup.map { ", backup \($0)" } ?? "")
        case .replicas(let replicas): return replicas.map { "\($0.cloud) \($0.count)" }.joined(separator: ", ")
        }
    }

    static func money(_ amounts: [PlacementReport.Amount], _ name: String) -> String {
        money(amounts.first { $0.name == name }?.amount ?? 0)
    }

    static func money(_ value: Double) -> String {
        Money.decimals(value, places: 2)
    }

    /// Columns padded to their widest cell; numbers in the last column, or in every column of `rightAligned`
    /// (headers included), line up on the right.
    public static func table(_ rows: [[String]], rightAligned: Set<Int> = []) -> String {
        guard let header = rows.first else { return "" }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            "  " + row.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                let numeric = index > 0 && cell.first.map { $0.isNumber || $0 == "-" } == true && row != header
                let right = rightAligned.contains(index) || (numeric && index == row.count - 1)
                return right ? padding + cell : cell + (index == row.count - 1 ? "" : padding)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
