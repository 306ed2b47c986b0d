@testable import MCloudPlanner
import Testing

/// How many copies of a placement fit in what a cloud has left, whatever the catalog's figures.
@Suite struct ResourceVectorTests {
    static let cases: [(free: ResourceVector, unit: ResourceVector, limit: Int, copies: Int)] = [
        (ResourceVector(cpu: 4, memory: 8, storage: 100), ResourceVector(cpu: 1, memory: 2, storage: 10), 10, 4),
        (ResourceVector(cpu: 4, memory: 8, storage: 100), ResourceVector(cpu: 0, memory: 0, storage: 30), 10, 3),
        (ResourceVector(cpu: 0.75, memory: 8, storage: 100), ResourceVector(cpu: 0.25, memory: 0, storage: 0), 10, 3),
        (ResourceVector(cpu: 0.5, memory: 8, storage: 100), ResourceVector(cpu: 1, memory: 0, storage: 0), 10, 0),
        // Regression: quotients beyond Int's range trapped in the Double-to-Int conversion.
        (ResourceVector(cpu: 1e30, memory: 1e30, storage: 1e30), ResourceVector(cpu: 1, memory: 1, storage: 1), 7, 7),
        (ResourceVector(cpu: 9.3e18, memory: 1, storage: 1), ResourceVector(cpu: 0.001, memory: 0, storage: 0), Int.max, Int.max),
        (ResourceVector(cpu: -1e30, memory: 8, storage: 100), ResourceVector(cpu: 1, memory: 1, storage: 1), 7, 0),
    ]

    @Test(arguments: cases)
    func copiesAreCountedWithoutTrappingOnAnyCapacity(free: ResourceVector, unit: ResourceVector, limit: Int, copies: Int) {
        #expect(free.copies(of: unit, limit: limit) == copies)
    }
}
