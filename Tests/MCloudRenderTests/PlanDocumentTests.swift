import MCloudCore
import MCloudManifest
import MCloudPlanner
import MCloudRender
import Testing

@Suite struct PlanDocumentTests {
    @Test func theDocumentHasCliMdsTopLevelKeysInOrder() throws {
        let root = String(#filePath.split(separator: "/Tests/")[0])
        let set = ManifestLoader.load(paths: ["\(root)/Manifests/shop"], providers: "\(root)/Providers")
        let plan = try Planner.plan(try #require(set.model)).get()
        let document = PlanDocument.json(plan)
        #expect(document.objectPairs.map(\.0) == ["format_version", "application", "placement", "explanations", "resource_changes", "summary"])
        #expect(document["placement"]?.objectPairs.map(\.0) == ["cells", "cdn", "cost"])
        #expect(document["format_version"]?.stringValue == "1.0")
        let view = PlanView.render(document, explain: false)
        #expect(view.hasPrefix("Placement of shop (7 cells on "))
    }
}
