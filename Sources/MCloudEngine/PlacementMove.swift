public import MCloudCore
import MCloudProvider

/// A cell whose replicas move between clouds, as the providers read them off the resources before and after:
/// `payments-api@ru: vk-msk 3 -> 2, sel-spb 1 -> 2`.
public struct PlacementMove: Sendable, Hashable {
    public var cell: String
    /// Every cloud that runs the cell before or after, sorted, with its replicas (0 where it runs none).
    public var replicas: [(cloud: String, before: Int, after: Int)]

    public static func == (lhs: PlacementMove, rhs: PlacementMove) -> Bool {
        lhs.cell == rhs.cell && lhs.replicas.elementsEqual(rhs.replicas) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(cell)
        for entry in replicas { hasher.combine(entry.cloud) }
    }

    public var description: String {
        "\(cell): " + replicas.filter { $0.before != $0.after }.map { "\($0.cloud) \($0.before) -> \($0.after)" }.joined(separator: ", ")
    }

    public var json: JSONValue {
        .object([
            ("cell", .string(cell)),
            ("replicas", .object(replicas.map { ($0.cloud, .object([("before", .int($0.before)), ("after", .int($0.after))])) })),
        ])
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
            return PlacementMove(cell: cell, replicas: clouds.map { (cloud: $0, before: was[$0] ?? 0, after: will[$0] ?? 0) })
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
