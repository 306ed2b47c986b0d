/// vCPU, memory in GiB and storage in GiB: what a placement takes from a cloud's capacity.
struct ResourceVector: Hashable, Sendable {
    var cpu: Double
    var memory: Double
    var storage: Double

    static let zero = ResourceVector(cpu: 0, memory: 0, storage: 0)

    /// Capacities are sums of binary fractions such as 0.25 vCPU; the slack absorbs rounding only.
    static let epsilon = 1e-9

    static func + (lhs: ResourceVector, rhs: ResourceVector) -> ResourceVector {
        ResourceVector(cpu: lhs.cpu + rhs.cpu, memory: lhs.memory + rhs.memory, storage: lhs.storage + rhs.storage)
    }

    static func - (lhs: ResourceVector, rhs: ResourceVector) -> ResourceVector {
        ResourceVector(cpu: lhs.cpu - rhs.cpu, memory: lhs.memory - rhs.memory, storage: lhs.storage - rhs.storage)
    }

    static func * (count: Int, vector: ResourceVector) -> ResourceVector {
        let factor = Double(count)
        return ResourceVector(cpu: factor * vector.cpu, memory: factor * vector.memory, storage: factor * vector.storage)
    }

    func fits(within free: ResourceVector) -> Bool {
        cpu <= free.cpu + Self.epsilon && memory <= free.memory + Self.epsilon && storage <= free.storage + Self.epsilon
    }

    /// How many copies of `unit` fit in `self`, at most `limit`.
    func copies(of unit: ResourceVector, limit: Int) -> Int {
        var count = limit
        if unit.cpu > 0 { count = min(count, Int(((cpu + Self.epsilon) / unit.cpu).rounded(.down))) }
        if unit.memory > 0 { count = min(count, Int(((memory + Self.epsilon) / unit.memory).rounded(.down))) }
        if unit.storage > 0 { count = min(count, Int(((storage + Self.epsilon) / unit.storage).rounded(.down))) }
        return max(0, count)
    }
}
