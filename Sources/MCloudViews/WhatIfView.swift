import MCloudCore

/// The human view of `plan --lose`: the cells that move, side by side, those that can no longer be placed with the
/// scheduler's summary and hints, then the monthly cost with every cloud against without the lost ones.
public enum WhatIfView {
    public static func render(_ report: WhatIfReport, explain: Bool) -> String {
        let lost = report.lost.joined(separator: ", ")
        let gone = "without \(lost)"
        var text = "What if \(lost) \(report.lost.count == 1 ? "were" : "were all") lost: \(report.application) placed \(gone)\n\n"
        if report.moves.isEmpty {
            text += "  No cell moves.\n"
        } else {
            var rows = [["CELL", "KIND", "NOW", "AFTER", "MONTHLY NOW", "MONTHLY AFTER"]]
            for move in report.moves {
                rows.append([
                    move.name, move.before.kind, describe(move.before), describe(move.after),
                    Money.decimals(move.monthlyBefore, places: 2), Money.decimals(move.monthlyAfter, places: 2),
                ])
            }
            text += PlacementView.table(rows, rightAligned: [4, 5])
        }
        if report.unchanged > 0 {
            text += "  \(report.unchanged) \(report.unchanged == 1 ? "cell or CDN stays" : "cells and CDNs stay") where \(report.unchanged == 1 ? "it is" : "they are").\n"
        }
        if !report.unplaceable.isEmpty {
            text += "\nCannot be placed \(gone)\n"
            for cell in report.unplaceable {
                text += "  \(cell.summary)\n"
                if let now = cell.before { text += "    now: \(describe(now))\n" }
                for hint in cell.hints { text += "    hint: \(hint)\n" }
                if explain {
                    for rejection in cell.rejected {
                        for reason in rejection.reasons { text += "    \(rejection.cloud): \(reason)\n" }
                    }
                }
            }
        }
        let left = report.unplaceable.count
        let leftOut = left == 0 ? "" : ", leaving out the \(left == 1 ? "cell" : "\(left) cells") that cannot be placed"
        text += "\n" + CostView.render(report.cost, heading: "Monthly cost, now -> \(gone)\(leftOut)")
        return text
    }

    static func describe(_ site: WhatIfReport.Move.Site) -> String {
        switch site {
        case .cell(let site): return PlacementView.describe(site)
        case .cdn(let cloud): return cloud
        }
    }
}
