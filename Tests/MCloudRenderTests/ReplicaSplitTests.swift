@testable import MCloudRender
import Testing

/// The autoscaler's min and max split across a cell's clouds in proportion to the placement.
@Suite struct ReplicaSplitTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var replicas: [Int]
        var min: Int
        var max: Int
        var expected: [ReplicaSplit.Bounds]
        var testDescription: String { "\(replicas) in [\(min), \(max)]" }
    }

    @Test(arguments: [
        Case(replicas: [3], min: 3, max: 10, expected: [.init(min: 3, max: 10)]),
        Case(replicas: [2, 2], min: 4, max: 16, expected: [.init(min: 2, max: 8), .init(min: 2, max: 8)]),
        Case(replicas: [1, 2], min: 3, max: 12, expected: [.init(min: 1, max: 4), .init(min: 2, max: 8)]),
        // Min 1.5 and 0.5, max 4.5 and 1.5: ties on the remainder go to the cloud with more replicas, and the
        // other cloud's minimum is raised to 1.
        Case(replicas: [3, 1], min: 2, max: 6, expected: [.init(min: 2, max: 5), .init(min: 1, max: 1)]),
        Case(replicas: [1, 1], min: 2, max: 6, expected: [.init(min: 1, max: 3), .init(min: 1, max: 3)]),
        // A min smaller than the number of clouds: no cloud goes below 1, so the minimums add up to 3.
        Case(replicas: [1, 1, 1], min: 1, max: 3, expected: [.init(min: 1, max: 1), .init(min: 1, max: 1), .init(min: 1, max: 1)]),
        // 7 x 2/5 = 2.8 and 7 x 3/5 = 4.2: largest remainder, the maximums add up to exactly 7.
        Case(replicas: [2, 3], min: 5, max: 7, expected: [.init(min: 2, max: 3), .init(min: 3, max: 4)]),
        Case(replicas: [1, 1, 2], min: 4, max: 20, expected: [.init(min: 1, max: 5), .init(min: 1, max: 5), .init(min: 2, max: 10)]),
    ])
    func boundsFollowThePlacement(_ test: Case) {
        #expect(ReplicaSplit.split(min: test.min, max: test.max, replicas: test.replicas) == test.expected)
    }

    /// Over every placement of up to 12 replicas on up to 3 clouds, and every min and max that admit it.
    @Test func everyCloudGetsAtLeastOneAndItsPlacedCountLiesWithinItsBounds() {
        var failures: [String] = []
        for placement in Self.placements(upTo: 12) {
            let total = placement.reduce(0, +)
            for min in 1...total {
                for max in total...(total * 3) {
                    let bounds = ReplicaSplit.split(min: min, max: max, replicas: placement)
                    let minimums = bounds.map(\.min).reduce(0, +)
                    let valid = zip(placement, bounds).allSatisfy { count, bound in bound.min >= 1 && (bound.min...bound.max).contains(count) }
                        && bounds.map(\.max).reduce(0, +) == max
                        && minimums >= min && minimums <= min + placement.count - 1
                    if !valid { failures.append("\(placement) in [\(min), \(max)]: \(bounds)") }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test func apportionHandsOutExactlyTheTotal() {
        #expect(ReplicaSplit.apportion(10, weights: [1, 1, 1]) == [4, 3, 3])
        #expect(ReplicaSplit.apportion(0, weights: [5, 5]) == [0, 0])
        #expect(ReplicaSplit.apportion(7, weights: [0, 3]) == [0, 7])
    }

    /// Replica counts of one, two and three clouds, each at least 1, adding up to at most `total`.
    static func placements(upTo total: Int) -> [[Int]] {
        var result: [[Int]] = []
        for first in 1...total {
            result.append([first])
            for second in stride(from: 1, through: total - first, by: 1) {
                result.append([first, second])
                for third in stride(from: 1, through: total - first - second, by: 1) { result.append([first, second, third]) }
            }
        }
        return result
    }
}
