import Foundation
import Testing

/// With a state, the plan shows the monthly cost recorded at the last apply, the cost after the plan and the change,
/// per cloud and per cell. Here the recorded placement is the one made when cloud a cost three times as much (every
/// cell on b); at today's prices both cells move to a, at half the cost.
@Suite struct CostDiffTests {
    static let fixture = "\(fixtures)/cost"
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-cost-\(UUID().uuidString)").path

    /// The state an apply of the placement at the old prices leaves: its placement and cost (no resources are needed
    /// for the cost diff).
    func stateFromOldPrices() async throws -> String {
        let providers = scratch + "/old-providers"
        try FileManager.default.createDirectory(atPath: providers, withIntermediateDirectories: true)
        let catalog = try String(contentsOfFile: "\(Self.fixture)/providers/clouds.yaml", encoding: .utf8)
        let tripled = catalog.replacingOccurrences(of: "vcpuHour: 0.01, memoryGiBHour: 0.005, storageGiBMonth: 0.1", with: "vcpuHour: 0.03, memoryGiBHour: 0.015, storageGiBMonth: 0.3")
        try #require(tripled != catalog)
        try tripled.write(toFile: providers + "/clouds.yaml", atomically: true, encoding: .utf8)
        let old = await mcloudRun(["plan", "--json", "-f", "\(Self.fixture)/app", "--providers", providers, "--state", "file://\(scratch)/none.json"])
        try #require(old.exitCode == 0, "\(old.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(old.stdout.utf8)) as? [String: Any])
        var placement = try #require(document["placement"] as? [String: Any])
        var cells = try #require(placement["cells"] as? [String: [String: Any]])
        for name in cells.keys { cells[name]?["why"] = nil }
        placement["cells"] = cells
        var cost = try #require(placement["cost"] as? [String: Any])
        cost["lowerBound"] = nil
        cost["gap"] = nil
        placement["cost"] = cost
        let state: [String: Any] = [
            "format_version": 2, "lineage": "2f0c5a9e-6f0b-4d56-9a49-0c3a1d2b7e11", "serial": 1, "application": "ledger",
            "placement": placement, "resources": [Any](),
        ]
        let path = scratch + "/state.json"
        try JSONSerialization.data(withJSONObject: state, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        return "file://" + path
    }

    @Test func aCellThatMovesShowsTheCostBeforeAfterAndTheChange() async throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let state = try await stateFromOldPrices()
        let arguments = ["-f", "\(Self.fixture)/app", "--providers", "\(Self.fixture)/providers", "--state", state, "--no-refresh"]
        let json = await mcloudRun(["plan", "--json"] + arguments)
        #expect(json.exitCode == 0, "\(json.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let cost = try #require(document["cost"] as? [String: Any])
        let before = try #require(cost["before"] as? [String: Any]), after = try #require(cost["after"] as? [String: Any])
        let delta = try #require(cost["delta"] as? [String: Any])
        #expect(before["monthly"] as? Double == 104.2)
        #expect(after["monthly"] as? Double == 52.1)
        #expect(delta["monthly"] as? Double == -52.1)
        #expect(delta["byCloud"] as? [String: Double] == ["a": 52.1, "b": -104.2])
        #expect(delta["byCell"] as? [String: Double] == ["db@eu": -30.2, "web@eu": -21.9])
        try Golden.check(json.stdout, named: "cost-diff-ledger.json")

        let human = await mcloudRun(["plan"] + arguments)
        #expect(human.exitCode == 0)
        try Golden.check(human.stdout, named: "cost-diff-ledger.txt")
        // --detailed-exitcode speaks of resources, as before: a cost change alone is not a change.
        #expect(await mcloudRun(["plan", "--detailed-exitcode"] + arguments).exitCode == 2)
    }

    @Test func withoutARecordedCostTheJSONHasNoBeforeAndTheViewNoTable() async throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let arguments = ["-f", "\(Self.fixture)/app", "--providers", "\(Self.fixture)/providers", "--state", "file://\(scratch)/none.json"]
        let json = await mcloudRun(["plan", "--json"] + arguments)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let cost = try #require(document["cost"] as? [String: Any])
        #expect(cost["before"] is NSNull)
        #expect(cost["delta"] is NSNull)
        #expect((cost["after"] as? [String: Any])?["monthly"] as? Double == 52.1)
        let human = await mcloudRun(["plan"] + arguments)
        #expect(!human.stdout.contains("Monthly cost against the last apply"))
    }
}
