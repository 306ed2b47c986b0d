import MCloudCore

/// The cost diff as people read it: the monthly cost recorded at the last apply, after this plan and the change,
/// for every cloud, then for the cells and CDNs whose cost changes.
public enum CostView {
    /// Empty without a recorded cost: the placement view already shows what the plan costs. `heading` says what the
    /// two sides are.
    public static func render(_ diff: CostDiff, heading: String = "Monthly cost against the last apply") -> String {
        guard let before = diff.before, let delta = diff.delta else { return "" }
        let percent = diff.percentChange.map { " (\(signed($0))%)" } ?? ""
        var text = "\(heading) (\(diff.currency)): \(money(before.monthly)) -> \(money(diff.after.monthly)), \(signed(delta.monthly))\(percent)\n\n"
        func rows(_ title: String, _ old: [PlacementReport.Amount], _ new: [PlacementReport.Amount], _ change: [PlacementReport.Amount], all: Bool)
            -> (rows: [[String]], unchanged: Int)
        {
            var rows = [[title, "BEFORE", "AFTER", "DELTA"]]
            var unchanged = 0
            for line in change {
                guard all || money(line.amount) != "0.00" else {
                    unchanged += 1
                    continue
                }
                rows.append([line.name, amount(old, line.name), amount(new, line.name), signed(line.amount)])
            }
            return (rows, unchanged)
        }
        var clouds = rows("CLOUD", before.byCloud, diff.after.byCloud, delta.byCloud, all: true).rows
        clouds.append(["total", money(before.monthly), money(diff.after.monthly), signed(delta.monthly)])
        text += PlacementView.table(clouds, rightAligned: [1, 2, 3])
        let cells = rows("CELL", before.byCell, diff.after.byCell, delta.byCell, all: false)
        let cdns = rows("CDN", before.byCDN, diff.after.byCDN, delta.byCDN, all: false)
        let changed = cells.rows + cdns.rows.dropFirst().map { [$0[0] + " (CDN)"] + $0.dropFirst() }
        if changed.count > 1 { text += "\n" + PlacementView.table(changed, rightAligned: [1, 2, 3]) }
        let unchanged = cells.unchanged + cdns.unchanged
        if unchanged > 0 { text += "  \(unchanged) \(unchanged == 1 ? "cell or CDN costs" : "cells and CDNs cost") the same as before.\n" }
        return text
    }

    private static func amount(_ list: [PlacementReport.Amount], _ name: String) -> String {
        list.first { $0.name == name }.map { money($0.amount) } ?? "-"
    }

    private static func money(_ value: Double) -> String {
        Money.decimals(value, places: 2)
    }

    /// `+12.50`, `-3.00`, `0.00`.
    private static func signed(_ value: Double) -> String {
        let text = money(value)
        return text == "0.00" || text == "-0.00" ? "0.00" : value > 0 ? "+" + text : text
    }
}
