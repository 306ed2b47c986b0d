public import MCloudEngine
public import MCloudCore
import MCloudProvider

extension PlacementReport {
    /// The refresh's warnings on each cell's resources, on the cell: a resource names its cell by the
    /// `mcloud.io/cell` label, which writes the cell's `@` as `.`.
    public func withWarnings(from changes: [ResourceChange]) -> PlacementReport {
        var byLabel: [String: [String]] = [:]
        for change in changes where !change.warnings.isEmpty {
            let body = change.after?.body ?? change.before ?? .null
            guard let label = ResourceBody(body).cell else { continue }
            byLabel[label, default: []] += change.warnings
        }
        guard !byLabel.isEmpty else { return self }
        var report = self
        report.cells = cells.map { cell in
            var cell = cell
            cell.warnings += byLabel[cell.name.split(separator: "@", omittingEmptySubsequences: false).joined(separator: ".")] ?? []
            return cell
        }
        return report
    }

    /// The report with the connections the plan will create.
    public func withConnections(_ connections: [Connection]) -> PlacementReport {
        var report = self
        report.connections = connections
        return report
    }

    /// Warnings the plan itself found on cells, by the cell's name (`sessions-redis@eu`), after any already there.
    public func withWarnings(byCell warnings: [String: [String]]) -> PlacementReport {
        guard !warnings.isEmpty else { return self }
        var report = self
        report.cells = cells.map { cell in
            var cell = cell
            cell.warnings += warnings[cell.name] ?? []
            return cell
        }
        return report
    }
}
