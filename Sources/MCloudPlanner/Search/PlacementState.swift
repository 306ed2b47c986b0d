/// Replicas of a service cell in one cloud.
struct Slot: Hashable {
    var cloud: Int
    var count: Int
}

/// A placement being built or improved, and what it takes from each cloud. Cells not placed yet hold
/// no slots or the primary -1.
struct PlacementState {
    var replicas: [[Slot]]
    var primary: [Int]
    var cdn: [Int]
    var usage: [ResourceVector]

    init(problem: PlanningProblem) {
        replicas = Array(repeating: [], count: problem.services.count)
        primary = Array(repeating: -1, count: problem.databases.count)
        cdn = problem.cdns.map { cell in cell.allowed.min { (cell.cost[$0], $0) < (cell.cost[$1], $1) } ?? -1 }
        usage = Array(repeating: .zero, count: problem.clouds.count)
    }

    func count(of service: Int, in cloud: Int) -> Int {
        replicas[service].first { $0.cloud == cloud }?.count ?? 0
    }
}
