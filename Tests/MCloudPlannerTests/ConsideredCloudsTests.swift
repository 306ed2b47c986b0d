import MCloudCore
import MCloudManifest
@testable import MCloudPlanner
import MCloudSynthetic
import Testing

/// The considered clouds agree with the rest of the plan: exactly the clouds that pass a cell's filters, the chosen
/// ones where the cell runs, the runner-up the cheapest of the others with room, and the reasons of the explanations
/// (a cost for a dearer cloud, the capacity for a full one) drawn from the same verdicts.
@Suite struct ConsideredCloudsTests {
    static let root = String(#filePath.split(separator: "/Tests/")[0])

    static let inputs: [FilterConsistencyTests.Input] = FilterConsistencyTests.inputs + [
        .generated(SyntheticInstance.Size(clouds: 12, services: 40, databases: 10), seed: 5),
    ]

    @Test(arguments: inputs)
    func consideredCloudsAgreeWithThePlacementFiltersAndReasons(_ input: FilterConsistencyTests.Input) throws {
        let model = try #require(input.model())
        let plan = try Planner.plan(model).get()
        let problem = PlanningProblem(model: model)
        #expect(plan.considered.map(\.cell) == plan.explanations.map(\.cell))
        let explanations = Dictionary(plan.explanations.map { ($0.cell, $0) }, uniquingKeysWith: { first, _ in first })
        let passing: [String: Set<String>] = Dictionary(
            problem.services.map { cell in
                (cell.cell.name, Set(problem.clouds.filter { problem.filters.servicePasses(cell.service, audiences: cell.audiences, $0) }.map(\.cloud.name)))
            } + problem.databases.map { cell in
                (cell.cell.name, Set(problem.clouds.filter { problem.filters.primaryPasses(cell.database, audiences: cell.audiences, $0) }.map(\.cloud.name)))
            },
            uniquingKeysWith: { first, _ in first }
        )
        for considered in plan.considered {
            #expect(Set(considered.candidates.map(\.cloud)) == passing[considered.cell], "\(considered.cell)")
            switch considered.kind {
            case .service:
                let placed = plan.services.first { $0.cell == considered.cell }?.replicas.map(\.cloud) ?? []
                #expect(Set(considered.chosen) == Set(placed), "\(considered.cell)")
            case .database:
                #expect(considered.chosen == [plan.databases.first { $0.cell == considered.cell }?.primary ?? ""], "\(considered.cell)")
            }
            let sorted = considered.candidates.map { $0.monthly ?? .infinity }
            #expect(sorted == sorted.sorted(), "\(considered.cell): not cheapest first")
            let key: (ConsideredClouds.Candidate) -> Double = { considered.kind == .service ? $0.perReplica ?? 0 : $0.monthly ?? .infinity }
            if let runnerUp = considered.runnerUp {
                for other in considered.candidates where other.verdict == .dearer {
                    #expect(key(runnerUp) <= key(other) + 1e-9, "\(considered.cell): \(other.cloud) is cheaper than the runner-up \(runnerUp.cloud)")
                }
                #expect(considered.runnerUpDelta != nil)
            } else {
                #expect(!considered.candidates.contains { $0.verdict == .dearer }, "\(considered.cell): dearer clouds but no runner-up")
            }
            let rejected = Dictionary((explanations[considered.cell]?.rejected ?? []).map { ($0.cloud, $0.reasons) }, uniquingKeysWith: { first, _ in first })
            for candidate in considered.candidates where candidate.verdict != .chosen {
                guard let reasons = rejected[candidate.cloud] else { continue }  // a database's backup cloud is in use
                let expected: Reason.Filter = switch candidate.verdict {
                case .full: .capacity
                case .noBackup: .dr
                default: .cost
                }
                #expect(reasons.contains { $0.filter == expected }, "\(considered.cell) at \(candidate.cloud): \(candidate.verdict) without a \(expected) reason")
            }
        }
    }

    @Test func theSameInputGivesTheSameConsideredClouds() throws {
        let model = try #require(FilterConsistencyTests.inputs[3].model())
        #expect(try Planner.plan(model).get().considered == Planner.plan(model).get().considered)
    }
}
