import MCloudProvider

/// A cell whose replicas move between clouds, as the providers read them off the resources before and after:
/// `payments-api@ru: vk-msk 3 -> 2, sel-spb 1 -> 2`.
public struct PlacementMove: Sendable, Hashable {
    /// One cloud's replicas of the cell before and after.
    public struct Replicas: Sendable, Hashable {
        public var cloud: String
        public var before: Int
        public var after: Int

        public init(cloud: String, before: Int, after: Int) {
            self.cloud = cloud
            self.before = before
            self.after = after
        }
    }

    public var cell: String
    /// Every cloud that runs the cell before or after, sorted, with its replicas (0 where it runs none).
    public var replicas: [Replicas]

    public init(cell: String, replicas: [Replicas]) {
        self.cell = cell
        self.replicas = replicas
    }

    public var description: String {
        "\(cell): " + replicas.filter { $0.before != $0.after }.map { "\($0.cloud) \($0.before) -> \($0.after)" }.joined(separator: ", ")
    }

    /// The moves between the cells' replicas `before` (what the state records) and `after` (the desired resources),
    /// each given with its cloud; a cell that only appears or disappears is not a move.
    static func moves(before: [(cloud: String, placed: CellReplicas)], after: [(cloud: String, placed: CellReplicas)]) -> [PlacementMove] {
        let old = replicasByCell(before)
        let new = replicasByCell(after)
        return Set(old.keys).intersection(new.keys).sorted().compactMap { cell in
            let was = old[cell] ?? [:]
            let will = new[cell] ?? [:]
            guard was != will else { return nil }
            let clouds = Set(was.keys).union(will.keys).sorted()
            return PlacementMove(cell: cell, replicas: clouds.map { Replicas(cloud: $0, before: was[$0] ?? 0, after: will[$0] ?? 0) })
        }
    }

    private static func replicasByCell(_ placed: [(cloud: String, placed: CellReplicas)]) -> [String: [String: Int]] {
        var result: [String: [String: Int]] = [:]
        for (cloud, replicas) in placed {
            result[replicas.cell, default: [:]][cloud, default: 0] += replicas.replicas
        }
        return result
    }
}
