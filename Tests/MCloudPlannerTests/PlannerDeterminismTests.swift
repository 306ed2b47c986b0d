import Foundation
import MCloudManifest
import MCloudPlanner
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
        #expect(first.placementJSON.serialized() == second.placementJSON.serialized())
        #expect(first.explanationsJSON.serialized() == second.explanationsJSON.serialized())
        #expect(first.cost.monthly >= first.cost.lowerBound - 1e-6)
    }
}
