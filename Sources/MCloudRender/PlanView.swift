public import MCloudCore

/// The human view of a plan document: placement, cost by cloud, the bound, and why each cell went where it did.
public enum PlanView {
    public static func render(_ document: JSONValue, explain: Bool) -> String {
        let placement = document["placement"] ?? .null
        let cells = placement["cells"]?.objectPairs ?? []
        let cdns = placement["cdn"]?.objectPairs ?? []
        let cost = placement["cost"] ?? .null
        let currency = cost["currency"]?.stringValue ?? ""
        let clouds = cost["byCloud"]?.objectPairs ?? []
        var text = "Placement of \(document["application"]?.stringValue ?? "") (\(cells.count) cells on \(clouds.count) clouds)\n\n"

        var rows = [["CELL", "KIND", "PLACEMENT", "MONTHLY"]]
        for (name, cell) in cells {
            rows.append([name, cell["kind"]?.stringValue ?? "", describe(cell), money(cost["byCell"]?[name])])
        }
        for (name, cloud) in cdns {
            rows.append([name, "CDN", cloud.stringValue ?? "", money(cost["byCDN"]?[name])])
        }
        text += table(rows) + "\n"

        var costs = [["CLOUD", "MONTHLY (\(currency))"]]
        for (cloud, amount) in clouds { costs.append([cloud, money(amount)]) }
        costs.append(["total", money(cost["monthly"])])
        text += table(costs)
        let gap = (cost["gap"]?.doubleValue ?? 0) * 100
        text += "No placement can cost less than \(money(cost["lowerBound"])) \(currency); this one is within \(Money.decimals(gap, places: 2))% of that bound.\n\n"

        text += "Why\n"
        for (name, cell) in cells {
            text += "  \(name): \(cell["why"]?.stringValue ?? "")\n"
        }
        if explain {
            text += "\nRejected clouds\n"
            for (name, rejected) in document["explanations"]?.objectPairs ?? [] {
                text += "  \(name)\n"
                for (cloud, reasons) in rejected.objectPairs {
                    for reason in reasons.arrayItems {
                        text += "    \(cloud): \(reason.stringValue ?? "")\n"
                    }
                }
            }
        }
        return text
    }

    static func describe(_ cell: JSONValue) -> String {
        if let primary = cell["primary"]?.stringValue {
            return "primary \(primary)" + (cell["backup"]?.stringValue.map { ", backup \($0)" } ?? "")
        }
        return (cell["replicas"]?.objectPairs ?? []).map { "\($0.0) \($0.1.intValue ?? 0)" }.joined(separator: ", ")
    }

    static func money(_ value: JSONValue?) -> String {
        Money.decimals(value?.doubleValue ?? 0, places: 2)
    }

    /// Columns padded to their widest cell; numbers line up on the right.
    static func table(_ rows: [[String]]) -> String {
        guard let header = rows.first else { return "" }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            "  " + row.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                let numeric = index > 0 && cell.first.map { $0.isNumber || $0 == "-" } == true && row != header
                return numeric && index == row.count - 1 ? padding + cell : cell + (index == row.count - 1 ? "" : padding)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
