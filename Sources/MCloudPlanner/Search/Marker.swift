/// A set of small integers that empties in constant time: a member carries the generation it was added in, so
/// clearing is a new generation rather than a pass over every cell. Membership never depends on hashing, so
/// whatever is built from it comes out in the same order on every run.
struct Marker {
    private var stamps: [UInt32]
    private var generation: UInt32 = 1

    init(count: Int) {
        stamps = Array(repeating: 0, count: count)
    }

    mutating func clear() {
        generation &+= 1
        if generation == 0 {
            stamps = Array(repeating: 0, count: stamps.count)
            generation = 1
        }
    }

    /// Adds `item`; false when it was already in.
    @discardableResult
    mutating func insert(_ item: Int) -> Bool {
        guard stamps[item] != generation else { return false }
        stamps[item] = generation
        return true
    }

    func contains(_ item: Int) -> Bool { stamps[item] == generation }
}
