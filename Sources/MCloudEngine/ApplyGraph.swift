import MCloudProvider

/// The order of an apply: which change waits for which. Creates and updates wait for what they depend on; a delete
/// goes before the delete (or replace) of what the deleted resource depended on, so dependents leave first. Changes
/// with nothing to do are left out, but for an EndpointSlice or egress policy whose source is made anew.
struct ApplyGraph {
    let changes: [ResourceChange]
    /// For each change (by index), the indices that may start only once it is done.
    let dependents: [[Int]]
    /// For each change, how many changes it waits for.
    let waitCounts: [Int]

    init(_ all: [ResourceChange]) throws(EngineError) {
        // An unchanged EndpointSlice or egress policy stays when something it names is made anew: that may come back
        // with another address, which the Applier then writes into it.
        let remade = Set(all.filter { $0.action == .create || $0.action == .replace }.map(\.address))
        changes = all.filter { change in
            change.action != .noOp || (ResourceBody.addressFilledKinds.contains(change.type) && change.after?.dependencies.contains(where: remade.contains) == true)
        }
        let index = Dictionary(changes.enumerated().map { ($1.address, $0) }, uniquingKeysWith: { first, _ in first })
        var dependents = Array(repeating: [Int](), count: changes.count)
        var waits = Array(repeating: 0, count: changes.count)
        func edge(from first: Int, to then: Int) {
            dependents[first].append(then)
            waits[then] += 1
        }
        for (position, change) in changes.enumerated() {
            if let desired = change.after {
                for dependency in desired.dependencies {
                    guard let other = index[dependency], changes[other].action != .delete else { continue }
                    edge(from: other, to: position)
                }
            }
            if change.action == .delete || change.action == .replace {
                for dependency in change.recorded?.dependencies ?? [] {
                    guard let other = index[dependency], changes[other].action == .delete || changes[other].action == .replace else { continue }
                    // A replaced resource is deleted then created: its dependency's create already waits for nothing
                    // of ours, but a deleted dependent must be gone before the dependency is deleted.
                    if change.action == .delete { edge(from: position, to: other) }
                }
            }
        }
        self.dependents = dependents
        waitCounts = waits
        try checkAcyclic()
    }

    private func checkAcyclic() throws(EngineError) {
        var waits = waitCounts
        var ready = waits.indices.filter { waits[$0] == 0 }
        var ordered = 0
        while let next = ready.popLast() {
            ordered += 1
            for dependent in dependents[next] {
                waits[dependent] -= 1
                if waits[dependent] == 0 { ready.append(dependent) }
            }
        }
        guard ordered == changes.count else {
            let stuck = waits.indices.filter { waits[$0] > 0 }.map { changes[$0].address.rawValue }.sorted()
            throw EngineError("the resources depend on each other in a cycle: \(stuck.prefix(5).joined(separator: ", "))")
        }
    }
}
