/// A lower bound on the cheapest placement: capacity is moved into the objective with a price per unit in each
/// cloud, every cell is then placed on its own, and the prices are tuned by subgradient steps. Any prices give
/// a valid bound; the best one found is reported.
///
/// Egress between a service and a database depends on both their placements; the bound counts only what no
/// placement can avoid: the share of replicas that maxShare keeps out of any one cloud, at the lowest egress price.
/// The steps start from the relaxation's prices, which egress barely moves, so a few dozen finish the job that
/// took hundreds from zero.
enum LagrangianBound {
    static func compute(_ relaxation: inout Relaxation, from start: [ResourceVector], upperBound: Double, iterations: Int) -> Double {
        let constant = relaxation.unavoidableCost()
        var prices = start
        var usage = [ResourceVector](repeating: .zero, count: relaxation.clouds)
        var best = -Double.infinity
        // Starting close, the first steps are short.
        var scale = 0.5
        var since = 0
        for _ in 0..<max(1, iterations) {
            let value = constant + relaxation.separateValue(prices, usage: &usage)
            if value > best + 1e-9 * max(1, abs(best)) || !best.isFinite {
                best = max(best, value)
                since = 0
            } else {
                since += 1
                if since >= 4 { (scale, since) = (scale / 2, 0) }
            }
            guard scale > 1e-6 else { break }
            relaxation.step(&prices, usage: usage, value: value, upperBound: upperBound, scale: scale)
        }
        return best
    }
}
