import Foundation
import Testing

/// With a state, the plan shows the monthly cost recorded at the last apply, the cost after the plan and the change,
/// per cloud and per cell. Here the recorded placement is the one made when cloud a cost three times as much (every
/// cell on b); at today's prices both cells move to a, at half the cost.
@Suite struct CostDiffTests {
    @Test func aCellThatMovesShowsTheCostBeforeAfterAndTheChange() async throws {
        let ledger = try LedgerWorkspace()
        defer { ledger.remove() }
        let state = try await ledger.state(appliedAt: .aTripled, resources: false)
        let arguments = ["-f", ledger.app, "--providers", ledger.providers, "--state", state, "--no-refresh"]
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
        let stable = json.stdout.replacingOccurrences(of: ledger.folder, with: "LEDGER")
        try Golden.check(stable, named: "cost-diff-ledger.json")

        let human = await mcloudRun(["plan"] + arguments)
        #expect(human.exitCode == 0)
        try Golden.check(human.stdout, named: "cost-diff-ledger.txt")
        // --detailed-exitcode speaks of resources, as before: a cost change alone is not a change.
        #expect(await mcloudRun(["plan", "--detailed-exitcode"] + arguments).exitCode == 2)
    }

    @Test func withoutARecordedCostTheJSONHasNoBeforeAndTheViewNoTable() async throws {
        let ledger = try LedgerWorkspace()
        defer { ledger.remove() }
        let arguments = ["-f", ledger.app, "--providers", ledger.providers, "--state", "file://\(ledger.folder)/none.json"]
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
