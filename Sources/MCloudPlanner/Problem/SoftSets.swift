/// The heart of the bound's soft minimum over sets of `left` of a service's cheapest clouds: given each cloud's
/// weight in a window around the threshold, the total weight of all such sets (the left-th elementary symmetric sum
/// of the weights) and each cloud's chance of being in the set. The general recursion runs forwards and backwards
/// over tables; sets of one or two (every service of the synthetic input, whose replicas spread over two ranks) have
/// closed forms that do the recursion's own arithmetic without its tables, so they give the same bits.
enum SoftSets {
    /// The total weight of the sets of `left` of the first `count` weights; when it is positive, each of those
    /// weights becomes its cloud's chance of being in the set. `suffix` holds at least `count + 1` values;
    /// `forward` and `backward` are the recursion's tables, grown as needed.
    static func chances(
        _ weight: inout MutableSpan<Double>, count: Int, left: Int, suffix: inout MutableSpan<Double>,
        forward: inout [Double], backward: inout [Double]
    ) -> Double {
        switch left {
        case 1: chancesOfOne(&weight, count: count)
        case 2: chancesOfTwo(&weight, count: count, suffix: &suffix)
        default: recursion(&weight, count: count, left: left, forward: &forward, backward: &backward)
        }
    }

    /// One of them: the sum of the weights, and each one's share of it.
    static func chancesOfOne(_ weight: inout MutableSpan<Double>, count: Int) -> Double {
        var total = 0.0
        for index in 0..<count { total += weight[index] }
        guard total > 0 else { return total }
        for index in 0..<count { weight[index] = weight[index] / total }
        return total
    }

    /// Two of them: the sum over pairs of the product of their weights; each is in the set with any other.
    static func chancesOfTwo(_ weight: inout MutableSpan<Double>, count: Int, suffix: inout MutableSpan<Double>) -> Double {
        // suffix[i]: the sum of the weights from i on.
        suffix[count] = 0
        for index in stride(from: count - 1, through: 0, by: -1) { suffix[index] = suffix[index + 1] + weight[index] }
        var total = 0.0, before = 0.0
        for index in 0..<count {
            total += weight[index] * before
            before += weight[index]
        }
        guard total > 0 else { return total }
        before = 0
        for index in 0..<count {
            let own = weight[index]
            weight[index] = own * (suffix[index + 1] + before) / total
            before += own
        }
        return total
    }

    /// Any number: forward[i * width + k] is the k-th elementary symmetric sum of the first i weights, backward of
    /// the last ones; a weight's sets are those of the others with one fewer.
    static func recursion(_ weight: inout MutableSpan<Double>, count: Int, left: Int, forward: inout [Double], backward: inout [Double]) -> Double {
        let width = left + 1
        if forward.count < (count + 1) * width {
            forward = Array(repeating: 0, count: (count + 1) * width)
            backward = forward
        }
        for k in 0..<width { forward[k] = k == 0 ? 1 : 0 }
        for i in 0..<count {
            for k in 0..<width {
                forward[(i + 1) * width + k] = forward[i * width + k] + (k > 0 ? weight[i] * forward[i * width + k - 1] : 0)
            }
        }
        for k in 0..<width { backward[count * width + k] = k == 0 ? 1 : 0 }
        for i in stride(from: count - 1, through: 0, by: -1) {
            for k in 0..<width {
                backward[i * width + k] = backward[(i + 1) * width + k] + (k > 0 ? weight[i] * backward[(i + 1) * width + k - 1] : 0)
            }
        }
        let total = forward[count * width + left]
        guard total > 0 else { return total }
        for i in 0..<count {
            var others = 0.0
            for a in 0..<left { others += forward[i * width + a] * backward[(i + 1) * width + left - 1 - a] }
            weight[i] = weight[i] * others / total
        }
        return total
    }
}
