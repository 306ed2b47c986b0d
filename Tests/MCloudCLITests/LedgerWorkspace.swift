import Foundation
import Testing

/// The ledger fixture (Fixtures/cost: web and db, cheapest on cloud a) in a scratch folder, with states as an apply
/// at other prices would have left them: the placement and cost then, and every resource of that placement.
struct LedgerWorkspace {
    static let fixture = "\(fixtures)/cost"
    static let lineage = "2f0c5a9e-6f0b-4d56-9a49-0c3a1d2b7e11"

    /// The prices of the state's apply against today's.
    enum Prices {
        /// Cloud a at three times today's: every cell on b, 104.20 EUR a month.
        case aTripled
        /// Both clouds at half of today's: every cell on a, 26.05 EUR.
        case halved
        /// Today's: every cell on a, 52.10 EUR.
        case today

        func apply(to catalog: String) -> String {
            let a = "vcpuHour: 0.01, memoryGiBHour: 0.005, storageGiBMonth: 0.1", b = "vcpuHour: 0.02, memoryGiBHour: 0.01, storageGiBMonth: 0.2"
            switch self {
            case .aTripled: return catalog.replacingOccurrences(of: a, with: "vcpuHour: 0.03, memoryGiBHour: 0.015, storageGiBMonth: 0.3")
            case .halved:
                return catalog.replacingOccurrences(of: a, with: "vcpuHour: 0.005, memoryGiBHour: 0.0025, storageGiBMonth: 0.05")
                    .replacingOccurrences(of: b, with: "vcpuHour: 0.01, memoryGiBHour: 0.005, storageGiBMonth: 0.1")
            case .today: return catalog
            }
        }
    }

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-ledger-\(UUID().uuidString)").path

    var app: String { folder + "/app" }
    var providers: String { Self.fixture + "/providers" }

    init() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixture + "/app", toPath: app)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Changes the application's manifest text.
    func edit(_ from: String, _ to: String) throws {
        let path = app + "/application.yaml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try #require(text.contains(from))
        try text.replacingOccurrences(of: from, with: to).write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A `file://` state as a complete apply of the plan at `prices` leaves it: that plan's placement and cost, and
    /// each resource it creates recorded with its body.
    func state(appliedAt prices: Prices, resources: Bool = true) async throws -> String {
        let catalog = folder + "/providers-\(prices)"
        try FileManager.default.createDirectory(atPath: catalog, withIntermediateDirectories: true)
        let text = try String(contentsOfFile: providers + "/clouds.yaml", encoding: .utf8)
        try prices.apply(to: text).write(toFile: catalog + "/clouds.yaml", atomically: true, encoding: .utf8)
        let made = await mcloudRun(["plan", "--json", "-f", app, "--providers", catalog, "--state", "file://\(folder)/none.json"])
        try #require(made.exitCode == 0, "\(made.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        var placement = try #require(document["placement"] as? [String: Any])
        var cells = try #require(placement["cells"] as? [String: [String: Any]])
        // Neither why a cell went where it did nor what the plan warned of is recorded by an apply.
        for name in cells.keys { cells[name]?["why"] = nil; cells[name]?["warnings"] = nil }
        placement["cells"] = cells
        var cost = try #require(placement["cost"] as? [String: Any])
        cost["lowerBound"] = nil
        cost["gap"] = nil
        placement["cost"] = cost
        let changes = try #require(document["resource_changes"] as? [[String: Any]])
        let recorded: [[String: Any]] = resources ? changes.enumerated().map { index, change in
            [
                "address": change["address"] ?? "", "provider": change["provider"] ?? "", "cloud": change["cloud"] ?? "",
                "provider_id": "id-\(index)", "attributes": change["after"] ?? [:], "dependencies": change["dependencies"] ?? [],
            ]
        } : []
        let state: [String: Any] = [
            "format_version": 2, "lineage": Self.lineage, "serial": 1, "application": "ledger", "placement": placement, "resources": recorded,
        ]
        let path = folder + "/state-\(prices).json"
        try JSONSerialization.data(withJSONObject: state, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        return "file://" + path
    }
}
