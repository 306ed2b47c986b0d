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
        let count = min(Self.copies(cpu, unit.cpu, limit), Self.copies(memory, unit.memory, limit), Self.copies(storage, unit.storage, limit))
        return max(0, count)
    }

    /// Whole copies of `unit` in `free` along one dimension, at most `limit`: compared as a Double before it becomes
    /// an Int, since a quotient beyond Int's range (a huge capacity over a tiny unit) would trap in the conversion.
    private static func copies(_ free: Double, _ unit: Double, _ limit: Int) -> Int {
        guard unit > 0 else { return limit }
        let quotient = ((free + epsilon) / unit).rounded(.down)
        guard quotient < Double(limit) else { return limit }
        return quotient > 0 ? Int(quotient) : 0
    }
}
