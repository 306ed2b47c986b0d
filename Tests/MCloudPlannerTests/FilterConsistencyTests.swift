import MCloudCore
import MCloudManifest
@testable import MCloudPlanner
import Testing

/// The planner filters with fast predicates and explains with reasons; the two must never disagree.
@Suite struct FilterConsistencyTests {
    static let root = String(#filePath.split(separator: "/Tests/")[0])

    static let inputs: [(String, String)] = ["retail-bank", "shop", "telemed"].map { ("\(root)/Manifests/\($0)", "\(root)/Providers") }
        + ["c8_s20_d5_k1", "c20_s100_d20_k2"].map { ("\(root)/../shared/bench/instances/\($0)/Manifests", "\(root)/../shared/bench/instances/\($0)/Providers") }

    @Test(arguments: inputs.indices)
    func eachPredicatePassesExactlyWhereItsReasonsAreEmpty(_ index: Int) throws {
        let (manifests, providers) = Self.inputs[index]
        let model = try #require(ManifestLoader.load(paths: [manifests], providers: providers).model)
        // Also with a cloud lost, which every filter must refuse.
        for lost in [[], model.clouds.prefix(1).map(\.name)] {
            try check(PlanningProblem(model: model, lost: Set(lost)))
        }
    }

    private func check(_ problem: PlanningProblem) throws {
        let filters = problem.filters
        for cloud in problem.clouds {
            for cell in problem.services {
                #expect(filters.servicePasses(cell.service, audiences: cell.audiences, cloud) == filters.serviceReasons(cell.service, audiences: cell.audiences, cloud).isEmpty)
            }
            for cell in problem.databases {
                #expect(filters.primaryPasses(cell.database, audiences: cell.audiences, cloud) == filters.primaryReasons(cell.database, audiences: cell.audiences, cloud).isEmpty)
                #expect(filters.backupPasses(cell.database, audiences: cell.audiences, cloud) == filters.backupReasons(cell.database, audiences: cell.audiences, cloud).isEmpty)
            }
            for cell in problem.cdns {
                #expect(filters.cdnPasses(cell.cdn, cloud) == filters.cdnReasons(cell.cdn, cloud).isEmpty)
            }
        }
    }
}
