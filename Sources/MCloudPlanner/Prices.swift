/// A price per unit of each resource in each cloud: Lagrange multipliers on capacity, which steer the
/// construction away from clouds the relaxation overfills.
struct Prices {
    var perCloud: [ResourceVector]

    func cost(of demand: ResourceVector, in cloud: Int) -> Double {
        let price = perCloud[cloud]
        return price.cpu * demand.cpu + price.memory * demand.memory + price.storage * demand.storage
    }

    func scaled(by factor: Double) -> Prices {
        Prices(perCloud: perCloud.map { ResourceVector(cpu: $0.cpu * factor, memory: $0.memory * factor, storage: $0.storage * factor) })
    }
}
