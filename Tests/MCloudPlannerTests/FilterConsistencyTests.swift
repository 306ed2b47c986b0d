import MCloudCore
import MCloudManifest
@testable import MCloudPlanner
import MCloudSynthetic
import Testing

/// The planner filters with fast predicates and explains with reasons; the two must never disagree.
@Suite struct FilterConsistencyTests {
    static let root = String(#filePath.split(separator: "/Tests/")[0])

    enum Input: Sendable, CustomTestStringConvertible {
        case example(String)
        case generated(SyntheticInstance.Size, seed: UInt64)

        var testDescription: String {
            switch self {
            case .example(let name): return name
            case .generated(let size, let seed): return "generated \(size.clouds) clouds, \(size.services) services, \(size.databases) databases, seed \(seed)"
            }
        }

        func model() -> Model? {
            switch self {
            case .example(let name):
                return ManifestLoader.load(paths: ["\(FilterConsistencyTests.root)/Manifests/\(name)"], providers: "\(FilterConsistencyTests.root)/Providers").model
            case .generated(let size, let seed):
                let files = SyntheticInstance(size: size, seed: seed).files
                return ManifestLoader.load(files.map { ManifestLoader.Source(file: $0.path, bytes: Array($0.text.utf8)) }).model
            }
        }
    }

    /// The examples, and generated inputs of the bench instances' sizes, whose rules and prices vary far more.
    static let inputs: [Input] = ["retail-bank", "shop", "telemed"].map(Input.example) + [
        .generated(SyntheticInstance.Size(clouds: 8, services: 20, databases: 5), seed: 1),
        .generated(SyntheticInstance.Size(clouds: 20, services: 100, databases: 20), seed: 2),
    ]

    @Test(arguments: inputs)
    func eachPredicatePassesExactlyWhereItsReasonsAreEmpty(_ input: Input) throws {
        let model = try #require(input.model())
        // Also with a cloud lost, which every filter must refuse.
        for lost in [[], model.clouds.prefix(1).map(\.name)] {
            try check(PlanningProblem(model: model, lost: Set(lost)))
        }
    }

    /// With every edge held to 20 ms, the clouds `maxLatencyMs` rules out are refused by the predicates, given as
    /// reasons, and missing from the cells' allowed clouds, all three alike.
    @Test(arguments: inputs)
    func localityRulesOutTheSameCloudsEverywhere(_ input: Input) throws {
        var model = try #require(input.model())
        for service in model.services.indices {
            for dependency in model.services[service].dependsOn.indices { model.services[service].dependsOn[dependency].maxLatencyMs = 20 }
        }
        var problem = PlanningProblem(model: model)
        problem.restrictLocality(Locality(problem))
        // The shop's cells are global and each may use every cloud the cells it uses may, so there nothing is ruled
        // out up front; everywhere else something is.
        #expect(problem.filters.locality.isEmpty == (input.testDescription == "shop"))
        try check(problem)
        for cell in problem.services {
            #expect(cell.allowed == problem.clouds.indices.filter { problem.filters.servicePasses(cell.service, audiences: cell.audiences, problem.clouds[$0]) })
        }
        for cell in problem.databases {
            #expect(cell.allowedPrimaries.allSatisfy { problem.filters.primaryPasses(cell.database, audiences: cell.audiences, problem.clouds[$0]) })
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
