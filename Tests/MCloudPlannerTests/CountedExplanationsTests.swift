import Foundation
import MCloudCore
import MCloudManifest
import MCloudPlanner
import MCloudSynthetic
import MCloudViews
import Testing

/// `Planner.Explanations.counted`, what `plan --json` plans with: the same placement, why, chosen clouds, runner-up
/// and counts as a plan with every reason, without the reasons' text and the other considered clouds.
@Suite struct CountedExplanationsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test(arguments: ["retail-bank", "shop", "telemed", "generated"])
    func aCountedPlanSaysWhatAPlanWithEveryReasonSaysInBrief(_ application: String) throws {
        var paths = ("\(Self.root)/Manifests/\(application)", "\(Self.root)/Providers")
        let folder = NSTemporaryDirectory() + "mcloud-counted-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        if application == "generated" {
            try SyntheticInstance(size: SyntheticInstance.Size(clouds: 40, services: 10, databases: 4), seed: 5).write(to: folder)
            paths = ("\(folder)/Manifests", "\(folder)/Providers")
        }
        let model = try #require(ManifestLoader.load(paths: [paths.0], providers: paths.1).model)
        let every = PlacementReport(try Planner.plan(model).get())
        let counted = PlacementReport(try Planner.plan(model, options: Planner.Options(explanations: .counted)).get())
        #expect(counted.placementJSON.serialized() == every.placementJSON.serialized())
        #expect(counted.consideredSummaryJSON.serialized() == every.consideredSummaryJSON.serialized())
        #expect(counted.explanations.allSatisfy { $0.rejected.isEmpty })
        #expect(counted.considered.allSatisfy { $0.candidates.allSatisfy { $0.verdict == .chosen || $0.verdict == .runnerUp } })
        #expect(every.explanations.contains { !$0.rejected.isEmpty })
    }
}
