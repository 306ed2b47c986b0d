import MCloudCore
@testable import MCloudViews
import Testing

@Suite struct PlanDocumentTests {
    @Test func theDocumentHasCliMdsTopLevelKeysInOrder() throws {
        let document = try ViewFixtures.shopDocument().json
        let keys = document.objectPairs.map(\.0)
        let cliMD = ["format_version", "application", "placement", "explanations", "resource_changes", "summary"]
        #expect(keys.filter(cliMD.contains) == cliMD)
        #expect(keys == [
            "format_version", "operation", "application", "placement", "explanations", "considered", "cost", "policy", "placement_moves",
            "resource_changes", "summary", "state", "input_digest", "refreshed",
        ])
        #expect(document["policy"]?["outcome"]?.stringValue == "warn")
        #expect(document["cost"]?.objectPairs.map(\.0) == ["currency", "before", "after", "delta"])
        #expect(document["placement"]?.objectPairs.map(\.0) == ["cells", "cdn", "cost"])
        #expect(document["format_version"]?.stringValue == "1.0")
        let view = PlanView.render(try ViewFixtures.shopDocument(), explain: false, color: false)
        #expect(view.hasPrefix("Placement of shop (7 cells on "))
    }
}
