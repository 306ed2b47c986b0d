import Foundation
import MCloudManifest
import MCloudPlanner
import MCloudViews
import Testing
import MCloudCore

@Suite struct PlannerDeterminismTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test(arguments: ["retail-bank", "shop", "telemed"])
    func theSameInputGivesByteIdenticalPlacements(_ application: String) throws {
        let set = ManifestLoader.load(paths: ["\(Self.root)/Manifests/\(application)"], providers: "\(Self.root)/Providers")
        let model = try #require(set.model)
        let first = try Planner.plan(model).get()
        let second = try Planner.plan(model).get()
        #expect(PlacementReport(first).placementJSON.serialized() == PlacementReport(second).placementJSON.serialized())
        #expect(PlacementReport(first).explanationsJSON.serialized() == PlacementReport(second).explanationsJSON.serialized())
        #expect(first.cost.monthly >= first.cost.lowerBound - 1e-6)
    }
}
