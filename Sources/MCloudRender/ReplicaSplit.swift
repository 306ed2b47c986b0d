/// An autoscaler's bounds split across the clouds a cell runs in, in proportion to the replicas placed on each, so
/// the clusters together scale over about the range the user asked for.
enum ReplicaSplit {
    struct Bounds: Equatable, Sendable {
        var min: Int
        var max: Int
    }

    /// One `Bounds` per entry of `replicas`, in its order. Every minimum is at least 1 (an autoscaler cannot go
    /// lower), so with fewer `min` than clouds the minimums add up to more than `min`; every maximum is at least its
    /// minimum. With `min <= sum of replicas <= max`, each cloud's placed count lies within its bounds.
    static func split(min: Int, max: Int, replicas: [Int]) -> [Bounds] {
        let minimums = apportion(min, weights: replicas).map { Swift.max(1, $0) }
        let maximums = apportion(max, weights: replicas)
        return zip(minimums, maximums).map { Bounds(min: $0, max: Swift.max($0, $1)) }
    }

    /// `total` shared in proportion to `weights` by largest remainder: each gets the floor of its exact share, and
    /// what is left goes one by one to the largest remainders, ties to the larger weight, then to the earlier entry.
    static func apportion(_ total: Int, weights: [Int]) -> [Int] {
        let sum = weights.reduce(0, +)
        guard sum > 0 else { return weights.map { _ in 0 } }
        var shares = weights.map { total * $0 / sum }
        let remainders = weights.map { total * $0 % sum }
        let order = weights.indices.sorted {
            (remainders[$0], weights[$0], -$0) > (remainders[$1], weights[$1], -$1)
        }
        for index in order.prefix(total - shares.reduce(0, +)) { shares[index] += 1 }
        return shares
    }
}
